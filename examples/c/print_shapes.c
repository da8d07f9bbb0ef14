/*
 * print_shapes.c - a small program over the nnefkit library: load a model,
 * check it, print its diagnostics, then the shape of each graph output.
 *
 *   cc shapes.c $(pkg-config --cflags --libs nnef) -o shapes
 *   ./shapes examples/tiny_convnet
 */
#include <nnef.h>

#include <stdio.h>
#include <stdlib.h>

static void print_output(const nnef_tensor_info *t)
{
	static const char *const types[] = { "scalar", "integer", "logical" };
	printf("%s: %s[", nnef_tensor_info_name(t), types[nnef_tensor_info_dtype(t)]);
	for (size_t d = 0; d < nnef_tensor_info_rank(t); d++)
		printf(d ? ",%lld" : "%lld", (long long)nnef_tensor_info_dim(t, d));
	printf("]\n");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s MODEL\n", argv[0]);
		return 2;
	}
	nnef_options o;
	nnef_options_init(&o);
	nnef_model *m = nnef_model_load(argv[1], &o);
	if (!m)
		return 2;
	char *text = nnef_diags_render(nnef_model_diags(m), argv[0], NNEF_RENDER_SOURCE | NNEF_RENDER_WARNINGS);
	fputs(text ? text : "", stderr);
	free(text);
	int status = (int)nnef_model_status(m);
	const nnef_graph *g = nnef_model_graph(m);
	if (status == NNEF_VALID && g) {
		printf("%s: valid, %zu operations\n", nnef_graph_name(g), nnef_graph_op_count(g));
		for (size_t i = 0; i < nnef_graph_output_count(g); i++)
			if (nnef_graph_output(g, i))
				print_output(nnef_graph_output(g, i));
	}
	nnef_model_free(m);
	return status;
}
