/*
 * fuzz_quant.c - libFuzzer target: any byte sequence as the graph.quant
 * of a fixed small model (spec 5.3). The model is a tar archive built in
 * memory: the graph below, its variables as tensor files of quantized
 * codes (qint8, quint8, quint4), float32 and int16 items, then the fuzz
 * bytes as graph.quant. model_check reads it from a memory file (memfd,
 * by its /proc/self/fd path), so graph.quant is read by the grammar
 * (PARSE_QUANT) and checked against the graph (names, operations
 * standard or declared, argument expressions and types, per-channel
 * arrays); when the model checks as valid, the interpreter loads the
 * variables, dequantizing the codes with the graph.quant parameters, and
 * runs the graph, each tensor quantized (spec 7.1), in float and in
 * double.
 * Nothing may crash, hang, leak or read out of bounds.
 * Build and run with `make fuzz-quant` (clang; FUZZ_SECONDS=60 by default).
 */
#define _GNU_SOURCE /* memfd_create */
#include "api/api_internal.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A custom quantization operation declared in the document (no body) and
 * one with a body, next to the standard ones. */
static const char graph_text[] =
	"version 1.0;\n"
	"extension KHR_enable_fragment_definitions;\n"
	"\n"
	"fragment my_quantize( x: tensor<scalar>, lo: tensor<scalar>,\n"
	"    hi: scalar, steps: integer, mode: string, flags: logical[] )\n"
	"    -> ( y: tensor<scalar> );\n"
	"fragment clamp_quantize( x: tensor<scalar>, lo: scalar = 0.0, hi: scalar )\n"
	"    -> ( y: tensor<scalar> )\n"
	"{\n"
	"    y = clamp(x, lo, hi);\n"
	"}\n"
	"\n"
	"graph quant_net( input ) -> ( output, count )\n"
	"{\n"
	"    input = external<scalar>(shape = [1, 2, 4, 4]);\n"
	"    filter = variable<scalar>(shape = [3, 2, 1, 1], label = 'conv/filter');\n"
	"    bias = variable<scalar>(shape = [1, 3], label = 'conv/bias');\n"
	"    gain = variable<scalar>(shape = [1, 3, 1, 1], label = 'gain');\n"
	"    offset = variable<scalar>(shape = [1, 3, 4, 4], label = 'offset');\n"
	"    steps = variable<integer>(shape = [2], label = 'steps');\n"
	"    # a 1x1 convolution without GEMM (interp_new warms GEMM up)\n"
"    wsum = sum_reduce(filter, axes = [1]);\n"
"    taps = transpose(wsum, axes = [1, 0, 2, 3]);\n"
"    isum = sum_reduce(input, axes = [1]);\n"
"    prod = mul(isum, taps);\n"
"    shift = reshape(bias, shape = [1, 3, 1, 1]);\n"
"    conv = add(prod, shift);\n"
	"    scaled = mul(conv, gain);\n"
	"    output = add(scaled, offset);\n"
	"    count = copy(steps);\n"
	"}\n";

/* The tensor files: label, item type, bits, shape. */
typedef struct DatSpec {
	const char *name;
	DatItemType type;
	uint32_t bits;
	uint32_t rank;
	uint32_t extents[4];
} DatSpec;

static const DatSpec dat_specs[] = {
	{ "conv/filter.dat", DAT_QSINT, 8, 4, { 3, 2, 1, 1 } },
	{ "conv/bias.dat", DAT_QUINT, 8, 2, { 1, 3 } },
	{ "gain.dat", DAT_QUINT, 4, 4, { 1, 3, 1, 1 } },
	{ "offset.dat", DAT_FLOAT, 32, 4, { 1, 3, 4, 4 } },
	{ "steps.dat", DAT_SINT, 16, 1, { 2 } },
};

typedef struct Buf {
	unsigned char *p;
	size_t len, cap;
} Buf;

static void buf_put(Buf *b, const void *data, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void buf_zeros(Buf *b, size_t n)
{
	static const unsigned char zero[512];
	while (n) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);
		buf_put(b, zero, k);
		n -= k;
	}
}

/* A ustar header for a regular file of size bytes, then its data padded
 * to 512 bytes. */
static void tar_member(Buf *b, const char *name, const void *data, size_t size)
{
	unsigned char h[512] = { 0 };
	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
	memcpy(h + 136, "00000000000", 12);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	buf_put(b, h, sizeof(h));
	buf_put(b, data, size);
	buf_zeros(b, (512 - size % 512) % 512);
}

/* Every member but graph.quant: built once. */
static const Buf *model_prefix(void)
{
	static Buf b;
	if (b.p)
		return &b;
	tar_member(&b, "graph.nnef", graph_text, sizeof(graph_text) - 1);
	for (size_t i = 0; i < sizeof(dat_specs) / sizeof(dat_specs[0]); i++) {
		const DatSpec *s = &dat_specs[i];
		DatHeader h;
		if (!dat_make_header(&h, s->type, s->bits, s->extents, s->rank))
			abort();
		size_t len = DAT_HEADER_SIZE + h.data_length;
		unsigned char *file = malloc(len);
		if (!file)
			abort();
		dat_write_header(&h, file);
		for (size_t k = 0; k < h.data_length; k++)
			file[DAT_HEADER_SIZE + k] = (unsigned char)(k * 37 + 11);
		if (s->type == DAT_FLOAT) /* small finite floats */
			for (size_t k = 0; k < h.data_length; k += 4)
				file[DAT_HEADER_SIZE + k + 3] = 0x3e;
		tar_member(&b, s->name, file, len);
		free(file);
	}
	return &b;
}

static void run(const Model *m, InterpPrecision p)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	InterpOptions io = { .precision = p };
	Interp *it = api_interp_new(m, &io, &dl);
	if (it && interp_load_variables(it, false, 1)) {
		for (size_t i = 0; i < interp_ninputs(it); i++)
			interp_random_input(it, i, INTERP_NORMAL, 2);
		interp_run(it);
	}
	interp_free(it);
	diag_list_free(&dl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0)
		fd = memfd_create("fuzz_quant", 0);
	if (fd < 0 || size > ((size_t)1 << 20))
		return 0;
	Buf b = { 0 };
	const Buf *pre = model_prefix();
	buf_put(&b, pre->p, pre->len);
	tar_member(&b, "graph.quant", data, size);
	buf_zeros(&b, 1024); /* the end of the archive */
	bool written = ftruncate(fd, 0) == 0 &&
		       pwrite(fd, b.p, b.len, 0) == (ssize_t)b.len;
	free(b.p);
	if (!written)
		return 0;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	Model m;
	ModelOptions opt = { .max_errors = 20, .flatten.max_depth = 200,
			     .flatten.quantize = true };
	model_check(&m, path, &opt);
	StrBuf out;
	sb_init(&out);
	model_render_diags(&m, "fuzz", &out, false, true);
	sb_free(&out);
	if (m.status == MODEL_VALID) {
		run(&m, INTERP_FLOAT);
		run(&m, INTERP_DOUBLE);
	}
	model_free(&m);
	return 0;
}
