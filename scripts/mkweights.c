/*
 * mkweights.c - writes deterministic weights for a model directory: for
 * every variable of DIR/graph.nnef, the tensor file <label>.dat (spec 5.1,
 * 5.2) of its shape, float32 values in [-0.5, 0.5) from a fixed-seed
 * generator (integers 0..9, logicals alternating, for the other data
 * types). Used to make the weights of the bundled examples
 * (`make example-weights`); not installed.
 *
 *   mkweights DIR [SEED]
 */
#include "model/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t next(uint64_t *s)
{
	/* xorshift64 */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Creates the folders of path (a file's path). */
static void make_folders(const char *path)
{
	char *p = util_strdup(path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0777);
		*s = '/';
	}
	free(p);
}

static int write_variable(const char *dir, const FlatOp *op, uint64_t *seed)
{
	const Value *label = flat_op_args(op)[1];
	const FlatTensor *t = op->results[0]->u.t;
	DatHeader h;
	uint32_t ext[DAT_MAX_RANK];
	for (uint32_t i = 0; i < t->rank && i < DAT_MAX_RANK; i++)
		ext[i] = (uint32_t)t->dims[i];
	TypeKind k = flat_tensor_kind(t);
	DatItemType type = k == TY_INTEGER ? DAT_SINT : k == TY_LOGICAL ? DAT_LOGICAL : DAT_FLOAT;
	if (!dat_make_header(&h, type, type == DAT_LOGICAL ? 8 : 32, ext, t->rank)) {
		fprintf(stderr, "mkweights: cannot describe '%.*s'\n", (int)label->n, label->u.str);
		return 1;
	}
	StrBuf path;
	sb_init(&path);
	sb_printf(&path, "%s/%.*s.dat", dir, (int)label->n, label->u.str);
	make_folders(sb_str(&path));
	FILE *fp = fopen(sb_str(&path), "wb");
	unsigned char head[DAT_HEADER_SIZE];
	dat_write_header(&h, head);
	unsigned char *data = util_calloc(h.data_length ? h.data_length : 1, 1);
	uint64_t n;
	dat_items(&h, &n);
	for (uint64_t i = 0; i < n; i++) {
		DatItem v;
		uint64_t r = next(seed);
		if (type == DAT_FLOAT)
			v.f = (double)(r >> 11) / 9007199254740992.0 - 0.5;
		else
			v.u = type == DAT_LOGICAL ? i % 2 : r % 10;
		dat_encode(&h, data, i, 1, &v);
	}
	int status = 0;
	if (!fp || fwrite(head, 1, sizeof(head), fp) != sizeof(head) ||
	    fwrite(data, 1, h.data_length, fp) != h.data_length) {
		fprintf(stderr, "mkweights: cannot write '%s': %s\n", sb_str(&path), strerror(errno));
		status = 1;
	}
	if (fp && fclose(fp) != 0)
		status = 1;
	free(data);
	sb_free(&path);
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fputs("usage: mkweights DIR [SEED]\n", stderr);
		return 2;
	}
	uint64_t seed = argc == 3 ? strtoull(argv[2], NULL, 10) : 0;
	seed = seed ? seed : 0x9e3779b97f4a7c15u;
	StrBuf graph;
	sb_init(&graph);
	sb_printf(&graph, "%s/graph.nnef", argv[1]);
	Model m;
	ModelOptions opt = { .no_data = true };
	int status = model_check(&m, sb_str(&graph), &opt) == MODEL_VALID ? 0 : 1;
	for (size_t i = 0; status == 0 && i < m.flat->nops; i++)
		if (m.flat->ops[i]->prim == SHAPE_OP_VARIABLE)
			status = write_variable(argv[1], m.flat->ops[i], &seed);
	if (!m.flat)
		fprintf(stderr, "mkweights: '%s' is not a valid graph\n", sb_str(&graph));
	model_free(&m);
	sb_free(&graph);
	return status;
}
