/*
 * interp_internal.h - what the executor (executor.c), the data functions
 * (tensor_io.c) and the kernels share: the plan of a run, one step per
 * operation, and the helpers of the kernel families.
 *
 * Kernels that compute with reals are compiled twice (interp/real.h:
 * float and double, suffixes _f32 and _f64); kernels that only move items
 * are compiled once. interp/kernels.def says which kernel runs each
 * primitive of shapes/primitives.def.
 */
#ifndef NNEF_INTERP_INTERNAL_H
#define NNEF_INTERP_INTERNAL_H

#include "interp/interp.h"

/* Ranks the interpreter runs (a tensor of higher rank is refused before
 * running, E1304). */
#define INTERP_MAX_RANK 32

/* One argument of a step: a tensor parameter (t), a tensor-array
 * parameter (items), or an attribute (neither: read flat_op_args(op)). */
typedef struct KArg {
	ITensor *t;
	ITensor **items;
	size_t n;
} KArg;

typedef struct Step Step;
typedef struct StepState StepState;
typedef bool (*Kernel)(Interp *it, const Step *s);

struct Step {
	const FlatOp *op;
	const Value *const *args; /* its arguments as kernels read them: the
				  operation's, or with the symbols the run
				  binds replaced by their values (dynamic.c) */
	Kernel run;            /* NULL: nothing to compute (external,
				  variable, constant, a fused producer) */
	KArg *in;              /* one per parameter */
	ITensor **out;         /* the results (array results: their items) */
	size_t nout;
	uint32_t *frees;       /* tensors whose last reader this is */
	size_t nfrees;
	uint32_t var;          /* update: the variable it updates */
	struct Nested *nested; /* tract_core_scan, tract_core_submodel: the
				  graph it runs (nested.c) */
	bool dynamic;          /* its results' shapes are known only when it
				  runs (dynamic.c) */
	bool symbolic_args;    /* its arguments hold symbols the run binds */
	uint32_t unread;       /* bit p: its kernel does not read parameter
				  p, whose producer is fused in (fusion.c) */
	const FlatOp *fused_from; /* that producer, or NULL */
	const Step *fused_into; /* the step that computes this one's
				  result (fusion.c), or NULL */
	uint32_t nfused;       /* steps whose results this one computes */
	bool view;             /* its result is its first argument's buffer
				  (reshape, squeeze, unsqueeze: interp_plan_view) */
	StepState *state;      /* what it keeps from run to run (state.c) */
	const struct Chain *chain; /* element-wise steps this one runs as
				  one, itself last (fusion.c), or NULL */
};

/* A variable: the data shared by the variable operations of one label. */
typedef struct IVar {
	const FlatOp *op;      /* the label's first variable operation */
	ITensor value;         /* owns its data */
	const char *label;     /* NUL-terminated copy of the label */
	const FlatTensor *ft;  /* the first operation's result */
	bool loaded;
} IVar;

/* A pending update: after the cycle, vars[var] takes result's data. */
typedef struct IUpdate {
	uint32_t var;
	const ITensor *result;
} IUpdate;

typedef struct ScratchBlock {
	void *p;
	size_t size;
	bool used;
} ScratchBlock;

struct Interp {
	InterpHost host;       /* the facts and data its host gives */
	const FlatGraph *g;
	DiagList *diags;
	InterpOptions opt;
	size_t rsize;          /* bytes of a scalar item: 4 or 8 */
	Arena arena;
	/* tensors: [0, g->ntensors) the graph's, by FlatTensor id; then the
	 * constants made of literal arguments */
	ITensor *t;
	size_t nt, capt;
	bool *pinned;          /* never freed between steps */
	bool *owned;           /* data is ours to free (not a variable's) */
	Step *steps;
	size_t nsteps;
	IVar *vars;
	size_t nvars;
	IUpdate *updates;
	size_t nupdates;
	uint32_t *inputs;      /* tensor indices of the graph's inputs */
	size_t ninputs;
	uint32_t *outputs;     /* tensor indices of the graph's outputs */
	size_t noutputs;
	InterpOpTime *times;
	size_t ntimes;
	size_t step_now;       /* the step running (for messages) */
	int int_bits;          /* widest integer items read (0: none) */
	struct InterpPool *pool; /* worker threads (pool.c), or NULL */
	bool pool_failed;      /* none could be started: one thread */
	ScratchBlock *blocks;  /* kernels' scratch memory, kept for reuse */
	size_t nblocks;
	/* the activations: every tensor that is not pinned lives in one
	 * block at an offset planned before running (-1: its own
	 * allocation) */
	unsigned char *block;
	size_t block_size;
	int64_t *offset;
	/* tract's dialect: shapes known only when the producer runs */
	int64_t **dyn_dims;    /* per tensor: its extents, or NULL */
	DimTable *dimtab;      /* symbols of shape functions run here */
	Arena run_arena;       /* what a step's shape inference allocates */
	struct RunSymbol *syms; /* symbols bound by the run (a cache's
				  length), and their values */
	size_t nsyms;
	/* opt.statistics: per tensor of the graph, its statistics over the
	 * last run, and whether they were taken */
	UtilStats *stats;
	bool *stats_taken;
};

/* Whether the statistics of tensor ix are taken (opt.statistics, and it
 * is bound to a name of the graph): its step must compute it, not be
 * fused into another (fusion.c). */
static inline bool interp_watched(const Interp *it, size_t ix)
{
	return it->opt.statistics && ix < it->g->ntensors && flat_tensor(it->g, ix)->bound;
}

/* ---- helpers (executor.c) ------------------------------------------------- */

/* Prepares to run g, the body of a scan in the graph `it` runs, with the
 * same host (a body has no variables); NULL after reporting. */
Interp *interp_new_body(const Interp *it, const FlatGraph *g,
			const InterpOptions *opt);

/* ---- shapes known when the graph runs (dynamic.c) ---------------------------- */

/* Marks the steps whose results have shapes known only from values the
 * run computes (tract_onnx_non_zero, and what follows), and refuses those
 * nnef-run cannot give a shape when they run; false after reporting. */
bool interp_plan_dynamic(Interp *it);
/* Gives the results of dynamic step s their shapes, from its inputs'
 * shapes and values, as the graph's check would have; false after
 * reporting (E1309). */
bool interp_infer_step(Interp *it, Step *s);
void interp_free_dynamic(Interp *it);
/* The symbols the run binds (the past length of each
 * tract_transformers_dyn_kv_cache, found before planning): a shape or an
 * argument holding only these can be run, its steps dynamic. */
void interp_find_run_symbols(Interp *it);
/* A kernel that gives its result k its shape (tract_onnx_non_max_
 * suppression): dims[0..rank) as the run found them; the symbols the check
 * wrote there bound to them; the result allocated. False after reporting. */
bool interp_shape_result(Interp *it, const Step *s, size_t k,
			 const int64_t *dims, uint32_t rank);
bool interp_dims_run_bound(const Interp *it, const int64_t *dims, uint32_t rank);
bool interp_value_run_bound(const Interp *it, const Value *v);

/* ---- state kept from run to run (state.c) ------------------------------------- */

/* Gives the steps that keep a state (tract's caches) an empty one. */
void interp_plan_states(Interp *it);
void interp_free_states(Interp *it);
/* The length of a dyn_kv_cache step's cache (0 before its first run). */
int64_t interp_cache_length(const Step *s);
/* The memory of `bytes` step s keeps from run to run (gru_seq's hidden
 * state); *first when it has not held anything yet. NULL after
 * reporting. */
void *interp_step_memory(Interp *it, const Step *s, size_t bytes, bool *first);

/* ---- nested graphs (nested.c) ---------------------------------------------- */

/* Plans the graph step s runs (tract_core_scan: its body flattened at the
 * shapes of one iteration; tract_core_submodel: the model inside); false
 * after reporting. */
bool interp_plan_nested(Interp *it, Step *s);
void interp_free_nested(Step *s);
/* Loads the variables of the models inside it's (tract_core_submodel). */
bool interp_load_nested(Interp *it, bool random_missing, uint64_t seed);

/* Bytes per item of data type k. */
size_t interp_item_size(const Interp *it, TypeKind k);
/* Allocates t's data (count items); false after reporting (E1305). */
bool interp_alloc(Interp *it, ITensor *t);
/* A run-time error at the step's operation (E13xx). */
void interp_fail(Interp *it, const Step *s, DiagCode code, const char *fmt,
		 ...) UTIL_PRINTF(4, 5);
/* Scratch memory for a kernel (n items of size bytes); NULL after
 * reporting (E1305). Give it back with interp_release. */
void *interp_scratch(Interp *it, const Step *s, size_t n, size_t size);
void interp_release(Interp *it, void *p);

/* ---- attribute values ------------------------------------------------------ */

static inline const Value *karg(const Step *s, size_t p)
{
	return s->args[p];
}

static inline int64_t karg_int(const Step *s, size_t p)
{
	return s->args[p]->u.i;
}

static inline bool karg_bool(const Step *s, size_t p)
{
	return s->args[p]->u.b;
}

static inline size_t karg_len(const Step *s, size_t p)
{
	return s->args[p]->n;
}

static inline int64_t karg_item(const Step *s, size_t p, size_t i)
{
	return s->args[p]->u.items[i]->u.i;
}

/* Whether string attribute p is `str`. */
bool interp_karg_is(const Step *s, size_t p, const char *str);

/* ---- broadcasting (spec 4.2.2: trailing singleton dimensions) -------------- */

/* Up to three operands walked over the output's shape, dimensions merged
 * where every operand is contiguous or constant along both. The walk
 * visits rows of `inner` items; st[k] is operand k's stride along a row
 * (0 or 1). */
typedef struct Bcast {
	size_t nops;
	size_t rank;           /* merged dimensions, the row excluded */
	int64_t dims[INTERP_MAX_RANK];
	int64_t strides[3][INTERP_MAX_RANK];
	int64_t inner;
	int64_t st[3];
	int64_t rows;
	/* walk state */
	int64_t idx[INTERP_MAX_RANK];
	int64_t off[3];
} Bcast;

void interp_bcast_init(Bcast *b, const ITensor *out, const ITensor *const *ops,
		       size_t nops);
/* Moves to the next row (off[k]: operand k's item at its start). */
void interp_bcast_next(Bcast *b);
/* Operand k's offset at row `row` of the walk (without walking). */
int64_t interp_bcast_offset(const Bcast *b, size_t k, int64_t row);
/* Moves a walk just initialized to row `row` (as that many _next). */
void interp_bcast_seek(Bcast *b, int64_t row);

/* ---- sliding windows (spec 4.3) ---------------------------------------------- */

typedef enum Border {
	BORDER_IGNORE,
	BORDER_CONSTANT,
	BORDER_REPLICATE,
	BORDER_REFLECT,
	BORDER_REFLECT_EVEN,
} Border;

Border interp_border_of(const Step *s, size_t p);

/* The input index that extended index i of an axis of extent n stands
 * for (spec 4.3 "Border Modes"), or -1 when it is outside and the border
 * is 'ignore' or 'constant'. Reflection beyond one extent folds again. */
static inline int64_t border_index(int64_t i, int64_t n, Border b)
{
	if (i >= 0 && i < n)
		return i;
	switch (b) {
	case BORDER_IGNORE:
	case BORDER_CONSTANT:
		return -1;
	case BORDER_REPLICATE:
		return i < 0 ? 0 : n - 1;
	case BORDER_REFLECT: {
		if (n == 1)
			return 0;
		int64_t period = 2 * (n - 1), r = i % period;
		if (r < 0)
			r += period;
		return r < n ? r : period - r;
	}
	case BORDER_REFLECT_EVEN: {
		int64_t period = 2 * n, r = i % period;
		if (r < 0)
			r += period;
		return r < n ? r : period - 1 - r;
	}
	}
	return -1;
}

/* The geometry of a sliding-window operation, per dimension of the
 * tensors (dimensions the window does not cover have f = s = d = 1 and
 * no padding). X is the up-scaled extent, x the down-scaled one. */
typedef struct Win {
	size_t rank;
	int64_t X[INTERP_MAX_RANK], x[INTERP_MAX_RANK];
	int64_t f[INTERP_MAX_RANK], s[INTERP_MAX_RANK], d[INTERP_MAX_RANK];
	int64_t p[INTERP_MAX_RANK]; /* padding before (after is implied) */
	Border border;
} Win;

/* Fills w for step s: windowed dimensions from `first` on, filter sizes
 * `size` (rank - first items), parameters at the given positions (-1:
 * the op has none), up- and down-scaled tensors. Automatic padding
 * follows spec 4.3. */
void interp_win_setup(Win *w, const Step *s, size_t first, const int64_t *size,
		      int p_border, int p_padding, int p_stride, int p_dilation,
		      const ITensor *up, const ITensor *down);

/* A loop that gains from wider vectors than the baseline's is compiled
 * also for AVX-512 and AVX2, chosen by what the machine has. The operations and
 * their order are the same (ISO C: no contraction into fused
 * multiply-adds), so are the results. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* Whether conv step s runs by Winograd's F(2x2, 3x3) (interp/winograd.c):
 * in float, not --plain, on a processor with the blocked GEMM's
 * micro-kernels, of static shapes, two spatial dimensions, 3x3 filters of
 * stride and dilation 1, enough channels and output positions. */
bool interp_conv_by_winograd(const Interp *it, const Step *s);

/* One group of such a conv of float x (Cg planes of w's input extents,
 * padded by w) by filters f (cg x Cg x 3 x 3) into y (cg planes), bias[k]
 * (or none: NULL) then added to plane k where not 0; false after
 * reporting (scratch memory). */
bool interp_conv_winograd(Interp *it, const Step *s, const float *x, const float *f,
			  float *y, const Win *w, int64_t Cg, int64_t cg, const float *bias);

/* The volume of dims[0..n). */
static inline int64_t dims_volume(const int64_t *dims, size_t n)
{
	int64_t v = 1;
	for (size_t i = 0; i < n; i++)
		v *= dims[i];
	return v;
}

/* Row-major strides (in items) of dims[0..rank). */
static inline void dims_strides(const int64_t *dims, size_t rank,
				int64_t *st)
{
	int64_t acc = 1;
	for (size_t d = rank; d-- > 0;) {
		st[d] = acc;
		acc *= dims[d];
	}
}

/* ---- shared byte kernels (k_layout.c) ------------------------------------------ */

/* Copies `in` into `out` extended by lo[d] items before and hi[d] after
 * along each dimension d (negative: cut), borders as for sliding windows;
 * outside items under 'constant' get the item at `value` (esize bytes).
 * out->dims must already hold the extended shape. */
void interp_pad_items(const ITensor *in, ITensor *out, const int64_t *lo,
		      Border border, const void *value, size_t esize);

/* ---- the kernel table (kernels.c) ------------------------------------------------- */

Kernel interp_kernel(ShapeOp op, InterpPrecision p);

#define KERNEL(op, fn) \
	bool fn##_f32(Interp *it, const Step *s); \
	bool fn##_f64(Interp *it, const Step *s);
#define KERNEL_ANY(op, fn) bool fn(Interp *it, const Step *s);
#include "interp/kernels.def"
#undef KERNEL
#undef KERNEL_ANY

/* One GEMM before the first run when the graph has GEMM-shaped
 * operations (k_conv.c): CBLAS touches its buffers while loading, not in
 * the first convolution. */
void interp_gemm_warm_up_f32(Interp *it);
void interp_gemm_warm_up_f64(Interp *it);

/* ---- fusion (fusion.c) ------------------------------------------------------- */

/* Runs pairs of steps as one where the results are the same (fusion.c):
 * an argmax_pool read only by a sample of the same window, a comparison
 * read only by a select of its operands. Not with keep_all. */
void interp_fuse(Interp *it);

/* Whether step s (a reshape, squeeze or unsqueeze, whose result holds
 * its input's items in the same order) can give a view of its input's
 * buffer instead of a copy, and which: VIEW_TAKES, the input's last
 * reader, an activation of the arena, hands its place over; VIEW_PINNED,
 * the input lives the whole run (a variable, a constant, a graph input,
 * a literal) and nothing updates it. Called by plan_memory. */
typedef enum InterpView { VIEW_NONE, VIEW_TAKES, VIEW_PINNED } InterpView;
InterpView interp_plan_view(const Interp *it, const Step *s, bool updates);

/* The fused max pooling of an argmax_pool read only by a sample (both
 * precisions). */
bool kern_max_pool_f32(Interp *it, const Step *s);
bool kern_max_pool_f64(Interp *it, const Step *s);
/* Element-wise steps on reals run as one pass (fusion.c): links[0]
 * computes from its operands; each later link takes the one before it
 * as its parameter `param` and its other operands from memory. The
 * last link's step runs kern_chain, the others nothing. */
#define CHAIN_MAX_LINKS 16

typedef struct ChainLink {
	const Step *s;         /* unary, binary arithmetic (not pow), or a
				  select with its comparison fused in */
	int param;             /* -1 for links[0] */
} ChainLink;

typedef struct Chain {
	size_t n;
	ChainLink links[CHAIN_MAX_LINKS];
} Chain;

bool kern_chain_f32(Interp *it, const Step *s);
bool kern_chain_f64(Interp *it, const Step *s);

/* The select of x and y on a comparison of x and y fused in (max, min). */
bool kern_select_compare_f32(Interp *it, const Step *s);
bool kern_select_compare_f64(Interp *it, const Step *s);

/* C[M x N] = op(A) x op(B) in float, row-major, op the transpose where
 * ta, tb (interp/gemm.c). False after reporting: its scratch memory. */
bool interp_sgemm(Interp *it, const Step *s, bool ta, bool tb, int64_t M,
		  int64_t N, int64_t K, const float *A, int64_t lda,
		  const float *B, int64_t ldb, float *C, int64_t ldc);

/* B made on demand instead of read from a matrix: panel(ctx, dst, k0,
 * kc, j0, cols, nr) writes rows [k0, k0 + kc) of B's columns [j0, j0 +
 * cols) (cols at most nr) to dst, row k at dst + (k - k0) nr (conv's
 * im2col, a panel at a time, where the GEMM packs B). */
typedef struct GemmSource {
	void (*panel)(const void *ctx, float *dst, int64_t k0, int64_t kc, int64_t j0,
		      int64_t cols, int64_t nr);
	const void *ctx;
} GemmSource;

/* Whether interp_sgemm_source computes a product of M x N (our
 * micro-kernels, not --plain, M no fewer than a tile's rows, and split
 * among threads by columns, each making only its own panels of B). */
bool interp_sgemm_by_source(const Interp *it, int64_t M, int64_t N);

/* C[M x N] = A x B, B from src, then bias as interp_sgemm_bias adds it;
 * only where interp_sgemm_by_source(it, M, N). False after reporting. */
bool interp_sgemm_source(Interp *it, const Step *s, int64_t M, int64_t N, int64_t K,
			 const float *A, int64_t lda, const GemmSource *src, float *C,
			 int64_t ldc, const float *bias);

/* The same, then bias[i] added to row i of C where it is not 0 (conv's
 * bias, in the order add_bias adds it: after the sum), while the rows
 * are in the cache. */
bool interp_sgemm_bias(Interp *it, const Step *s, bool ta, bool tb, int64_t M,
		       int64_t N, int64_t K, const float *A, int64_t lda,
		       const float *B, int64_t ldb, float *C, int64_t ldc,
		       const float *bias);

/* C[M x N] = A x B in float (neither transposed) on the calling thread
 * alone, for a part of a job already split among threads, packing into
 * scratch (interp_sgemm_serial_floats(N) floats); false, computing
 * nothing, where the processor has no micro-kernel (the floats are then
 * 0). */
size_t interp_sgemm_serial_floats(int64_t N);
bool interp_sgemm_serial(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
			 const float *B, int64_t ldb, float *C, int64_t ldc, float *scratch);

/* ---- threads (pool.c) ---- */

typedef struct InterpPool InterpPool;

/* Part `part` of `parts` of a job. */
typedef void (*InterpPart)(void *ctx, int part, int parts);

/* The threads a run uses: opt.threads, or the processors online. */
int interp_threads(const Interp *it);

/* Runs fn(ctx, part, parts) for every part in [0, parts), on the
 * interpreter's threads (each taking the next part when free), and
 * returns when all are done. */
void interp_parallel(Interp *it, int parts, InterpPart fn, void *ctx);

/* The running thread's slot among interp_threads(): 0 for the thread
 * that called interp_parallel (or any thread outside a job), 1 .. T - 1
 * for the workers. For scratch memory per thread. */
int interp_slot(void);

/* Starts the worker threads (if it runs on more than one), so that
 * their start is not part of the first run. */
void interp_pool_start(Interp *it);

#endif
