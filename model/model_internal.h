/*
 * model_internal.h - the steps of model checking shared by stages.c (the
 * container and the pipeline) and data_check.c (the data against the graph).
 */
#ifndef NNEF_MODEL_INTERNAL_H
#define NNEF_MODEL_INTERNAL_H

#include "model/model.h"

/* Groups the variable operations of the flat graph by label (compared
 * ignoring case, spec 4.1.3) into m->vars. */
void model_collect_variables(Model *m);
/* The data checks of a flattened model (spec chapter 6, step 4): every
 * .dat header, each variable against its file, sample inputs and
 * outputs, files nothing uses, and graph.quant. A bare graph file, or
 * --no-data, gets one note instead. */
void model_check_data(Model *m, const ModelOptions *opt);
/* graph.quant against the graph (spec 5.3): each entry names a tensor of
 * the graph, once, with a quantization operation and all its other
 * arguments as literals of the right types. */
void model_check_quant(Model *m);
/* Parses graph.quant (when the model has one) with the document's
 * grammar and checks its entries against m->prog (sema_check_quant):
 * m->quant, also returned (NULL when there is none). */
const AstDoc *model_parse_quant(Model *m);
/* Parses, checks and flattens m->graph_src in one pass (stream.c), when
 * nothing is to be reported: then sets m->parse, m->prog, m->flat and
 * returns true. Otherwise leaves m as it found it and returns false. */
bool model_check_streamed(Model *m, const ModelOptions *opt);
/* tract's dialect: the datum type of a variable's tensor file
 * (FlattenOptions.var_datum; ctx the Model). */
DType model_var_datum(void *ctx, const char *label, size_t len);
/* Documents of this size or more are mapped rather than read. */
enum { MODEL_MAP_BYTES = 256 << 10 };
/* The text of document member mem, whole: mapped from its file when it
 * is large (*mapped), else read, followed by two NULs. NULL after
 * reporting a document too large (E0006) or a failed read. */
char *model_read_document(Model *m, Container *c, const ContMember *mem,
			  size_t *len, bool *mapped);
/* The path of the model's file name (a ModelFile's) as reports name it,
 * "dir/conv1/filter.dat" or "m.tgz/conv1/filter.dat"; util_free it. */
char *model_file_path(const Model *m, const char *name);
/* A source over a document's text as model_read_document gave it. */
SourceFile *model_source(const char *path, char *text, size_t len,
			 bool mapped);
/* Reads the --declarations files into m->decl_src (declarations.c); false after
 * reporting one that cannot be read. */
bool model_read_declarations(Model *m, const ModelOptions *opt);
/* Parses the standard library and the declarations into m->stdlib and
 * m->decl_docs, and points so at the declarations. */
void model_libraries(Model *m, SemaOptions *so);

#endif
