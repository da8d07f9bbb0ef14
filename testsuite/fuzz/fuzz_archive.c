/*
 * fuzz_archive.c - libFuzzer target: any byte sequence as a model
 * container (spec 5.1): a tar, a gzip-compressed tar, or anything else
 * up to 256 bytes, which then reads as a bare graph file. The bytes go
 * to a memory file (memfd) and model_check reads it by its
 * /proc/self/fd path with small limits, so the archive reader (headers,
 * long names, pax records, gzip), the member listing, graph.nnef and
 * graph.quant, the tensor file headers and the data checks all run, and
 * the diagnostics are rendered. A model that checks as valid is read
 * again (model_read_files: every member whole, every tensor file
 * decoded), and, unless its graph has GEMM-shaped operations (interp_new
 * warms CBLAS up for them, too slow here), the interpreter loads its
 * variables from the archive.
 * Nothing may crash, hang, leak or read out of bounds.
 * Build and run with `make fuzz-archive` (clang; FUZZ_SECONDS=60 by default).
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

/* Reads a member of the model again, whole, and decodes the items of a
 * tensor file with a valid header. The model checked as valid, so the
 * archive is whole: every member must give all its bytes. */
static bool reread(void *ctx, const ModelFile *f, Container *c)
{
	(void)ctx;
	unsigned char *bytes = malloc(f->size ? (size_t)f->size : 1);
	if (!bytes)
		return false;
	uint64_t got = 0;
	for (long k; got < f->size; got += (uint64_t)k)
		if ((k = cont_read(c, bytes + got, (size_t)(f->size - got))) <= 0)
			break;
	if (f->type == MEMBER_FILE && got != f->size)
		__builtin_trap();
	DiagList dl;
	diag_list_init(&dl, 0);
	DatHeader h;
	if (f->is_dat && f->type == MEMBER_FILE &&
	    dat_read_header(bytes, got, f->size, f->name, true, &h, &dl) &&
	    dat_decodable(&h)) {
		uint64_t n = 0;
		DatItem items[256];
		dat_items(&h, &n);
		for (uint64_t first = 0; first < n; first += 256)
			dat_decode(&h, bytes + h.header_size, first,
				   n - first < 256 ? (size_t)(n - first) : 256, items);
	}
	diag_list_free(&dl);
	free(bytes);
	return true;
}

/* Whether the graph has GEMM-shaped operations, which interp_new warms
 * CBLAS up for: a cost per run that would slow the fuzzer down. */
static bool has_gemm(const FlatGraph *g)
{
	for (size_t i = 0; i < g->nops; i++) {
		ShapeOp p = g->ops[i]->prim;
		if (p == SHAPE_OP_CONV || p == SHAPE_OP_DECONV || p == SHAPE_OP_MATMUL)
			return true;
	}
	return false;
}

/* Loads the variables from the container as the interpreter does (the
 * graph is not run: fuzz_run does that). */
static void load(const Model *m)
{
	DiagList dl;
	diag_list_init(&dl, 0);
	InterpOptions io = { .precision = INTERP_FLOAT };
	Interp *it = api_interp_new(m, &io, &dl);
	if (it)
		interp_load_variables(it, false, 1);
	interp_free(it);
	diag_list_free(&dl);
}

/* Whether the bytes start like a container: the gzip magic, or a tar
 * header (the ustar magic, or a checksum that matches: the sum of its
 * bytes, the checksum field counted as spaces). Anything else reads as a
 * bare graph file, which fuzz_parse covers: here it is kept short, as
 * binary bytes make thousands of diagnostics and slow the fuzzer down. */
static bool container_like(const uint8_t *data, size_t size)
{
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		return true;
	if (size < 512)
		return false;
	if (memcmp(data + 257, "ustar", 5) == 0)
		return true;
	unsigned long want = 0, sum = 0;
	for (int i = 148; i < 156 && data[i] >= '0' && data[i] <= '7'; i++)
		want = want * 8 + (unsigned long)(data[i] - '0');
	for (int i = 0; i < 512; i++)
		sum += (i >= 148 && i < 156) ? ' ' : data[i];
	return sum == want;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 && !container_like(data, size))
		return 0;
	static int fd = -1;
	if (fd < 0)
		fd = memfd_create("fuzz_archive", 0);
	if (fd < 0 || ftruncate(fd, 0) != 0 ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return 0;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	Model m;
	ModelOptions opt = {
		.max_errors = 20,
		.flatten.max_depth = 200,
		.limits = { .max_bytes = 4u << 20, .max_member = 1u << 20,
			    .max_members = 300 },
	};
	model_check(&m, path, &opt);
	StrBuf out;
	sb_init(&out);
	model_render_diags(&m, "fuzz", &out, false, true);
	sb_free(&out);
	if (m.status == MODEL_VALID && m.flat) {
		DiagList dl;
		diag_list_init(&dl, 0);
		if (!model_read_files(&m, reread, NULL, &dl))
			__builtin_trap(); /* it read the first time */
		diag_list_free(&dl);
		if (!has_gemm(m.flat))
			load(&m);
	}
	model_free(&m);
	return 0;
}
