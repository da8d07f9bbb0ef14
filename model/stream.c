/*
 * stream.c - checking a document in one pass: each statement of the
 * graph's body is parsed, type-checked, flattened (with its shapes) and
 * dropped before the next is read, so that a flat graph of a million
 * operations is never held as a syntax tree as well.
 *
 * The one pass is taken first; it stops at the first diagnostic of any
 * kind, and also when an identifier of the graph turns out to be a name
 * already given to a tensor of an earlier expansion (the whole pass
 * reserves every identifier before naming anything). Then the model is
 * checked again, whole (stages.c), which gives the diagnostics exactly as
 * it always has: a valid model costs one pass, an invalid one at most
 * two.
 *
 * A large text is parsed on a second thread (the parser) while this one
 * checks and flattens what it has parsed: the parser hands statements
 * over in batches, each with the arena of its nodes, and takes back the
 * batches done. The two threads share the model's heap and interner,
 * each under a lock (util_heap_share, Interner.lock); the parser builds
 * the document in an arena of its own (m->syntax) and reports into a
 * list of its own, since any diagnostic at all ends the pass.
 *
 * The statements are read by the faster readers of grammar/ and lexer/
 * where they can, by the parser tables where they cannot; how those are
 * fenced, and NNEF_REFERENCE_PARSER=1, which turns them off, are in
 * docs/ARCHITECTURE.md ("The streamed pass").
 */
#include "model/model_internal.h"

#include <pthread.h>
#include <string.h>

typedef struct Streamer {
	Model *m;
	const ModelOptions *opt;
	SemaOptions so;
	FlattenOptions fo;
	size_t before;       /* diag_count at the start */
	SemaGraph *sg;       /* between begin and the end of the pass */
	FlatStream *fs;
	ParseResult res;
	FlatGraph *g;        /* the graph, when the pass succeeded */
	uint8_t threads;     /* the threads of the pass */
	struct Pipe *pipe;   /* when the parser has a thread of its own */
} Streamer;

static bool quiet(const Streamer *st)
{
	return diag_count(&st->m->diags) == st->before;
}

/* The document up to the graph's body has been read and checked. */
static bool on_begin(void *ctx, const ParseResult *so_far)
{
	Streamer *st = ctx;
	Model *m = st->m;
	if (!so_far->doc->graph)
		return false;
	model_libraries(m, &st->so);
	st->sg = sema_begin(&m->prog, so_far->doc, m->stdlib.doc, &m->arena,
			    &m->interner, &m->diags, &st->so);
	m->checked = true; /* m->prog is to be freed */
	if (!quiet(st))
		return false;
	st->fo.quant = model_parse_quant(m);
	if (!quiet(st))
		return false;
	st->fs = flatten_begin(&m->prog, &m->arena, &m->interner, &m->diags,
			       &st->fo);
	/* an operation for every 32 bytes of text, which is more than
	 * generated graphs have (one for every 66) */
	flatten_reserve(st->fs, m->graph_src->len / 32);
	return true;
}

static bool on_stmt(void *ctx, AstAssign *s, Arena *scratch)
{
	Streamer *st = ctx;
	sema_stmt(st->sg, s, scratch);
	return quiet(st) && flatten_stmt(st->fs, s) && quiet(st);
}

/* ---- the parser on a thread of its own --------------------------------- */

/* A batch holds BATCH_STMTS statements at most, fewer in a smaller text:
 * the checker begins when the first batch is handed over, and the
 * batches in flight hold their syntax trees (about ten times the bytes
 * of their text), so a batch is a small part of the text (one statement
 * for every BATCH_TEXT bytes: about a 128th), and not so small that the
 * threads wake each other at every few statements (at least BATCH_MIN). */
enum { BATCH_STMTS = 1024, BATCH_MIN = 64, BATCH_TEXT = 8192, NBATCHES = 4, NCHUNKS = 1 };

/* The syntax tree of a statement, about: a batch's arena is made to hold
 * this much a statement at first (arena_reserve), so that it keeps one
 * chunk when it is reset, not the doubling ones before it (a generated
 * graph's statements take about 800 bytes). */
enum { STMT_TREE_BYTES = 1024 };

/* The statements of a batch for a text of len bytes. */
static size_t batch_stmts(size_t len)
{
	size_t n = len / BATCH_TEXT;
	return n < BATCH_MIN ? BATCH_MIN : n > BATCH_STMTS ? BATCH_STMTS : n;
}

/* Statements parsed, with the arena of their nodes. */
typedef struct Batch {
	Arena arena;
	AstAssign *stmts;   /* Pipe.batch_stmts */
	size_t n;
} Batch;

typedef struct Pipe {
	Streamer *st;
	pthread_t thread;
	/* short waits; each on a cache line of its own, since the checker
	 * takes the one and the parser the other many times */
	_Alignas(64) pthread_spinlock_t heap_lock;
	_Alignas(64) pthread_spinlock_t intern_lock;
	_Alignas(64) pthread_mutex_t lock; /* the fields below */
	pthread_cond_t changed;
	Batch *batches;           /* NBATCHES, used in turn */
	size_t batch_stmts;       /* statements a batch is handed over at */
	size_t sent, done;        /* batches handed over, and checked */
	bool filling;             /* the parser fills batches[sent % NBATCHES]
				     (read and written by the parser only) */
	bool parsed;              /* the parser has returned */
	bool stop;                /* the checker wants no more */
	const ParseResult *so_far; /* the document up to the graph's body,
				     while the parser waits for begun */
	int begun;                /* the checker's on_begin: 1 went on, -1 not */
	void *chunks[NCHUNKS];    /* for the checker's arena, prepared by
				     the parser when it would wait */
	size_t nchunks;
	void *prep;               /* the chunk being faulted in, by steps */
	size_t prep_done;         /* its bytes faulted in so far */
	bool no_chunks;           /* arena_prepare_chunk failed */
	size_t parsed_to;         /* the end of the last statement parsed
				     (read and written by the parser only) */
	bool out_of_memory;       /* the parser ran out of memory */
	UtilHeap *heap;           /* the model's */
	DiagList diags;           /* what the parser reported */
} Pipe;

/* Parser: the batch it fills (or fills next). */
static Batch *filled(Pipe *p)
{
	return &p->batches[p->sent % NBATCHES];
}

/* Parser: the document up to the graph's body goes to the checker,
 * which begins the pass with it (sema and the flattener are the
 * checker's: the flattener measures the stack of the thread it runs on). */
static bool pipe_begin(void *ctx, const ParseResult *so_far)
{
	Pipe *p = ((Streamer *)ctx)->pipe;
	pthread_mutex_lock(&p->lock);
	p->so_far = so_far;
	pthread_cond_broadcast(&p->changed);
	while (!p->begun && !p->stop)
		pthread_cond_wait(&p->changed, &p->lock);
	bool go = p->begun > 0 && !p->stop;
	pthread_mutex_unlock(&p->lock);
	return go;
}

/* Parser: faults in the next PREP_STEP bytes of the chunk it prepares
 * for the checker (the step is short beside the batches queued, so that
 * the checker does not wait for the parser meanwhile); true when the
 * chunk is ready. */
enum { PREP_STEP = 256 << 10 };

static bool prepare_step(Pipe *p)
{
	if (!p->prep) {
		p->prep = arena_prepare_chunk();
		p->prep_done = 0;
		p->no_chunks = !p->prep;
		if (!p->prep)
			return false;
	}
	size_t n = ARENA_SOURCE_BYTES - p->prep_done;
	if (n > PREP_STEP)
		n = PREP_STEP;
	util_prefault((char *)p->prep + p->prep_done, n);
	p->prep_done += n;
	return p->prep_done == ARENA_SOURCE_BYTES;
}

/* Parser: the arena of the next statement's nodes, that of the batch
 * being filled, once the checker has given it back (NULL: stop). */
static Arena *pipe_arena(void *ctx)
{
	Pipe *p = ((Streamer *)ctx)->pipe;
	if (p->filling) /* the parser's own field */
		return &filled(p)->arena;
	pthread_mutex_lock(&p->lock);
	while (!p->stop && p->sent - p->done == NBATCHES) {
		/* rather than wait, fault in memory for the checker, while
		 * the text left is enough for the checker to take it (its
		 * arena grows faster than the text: a chunk prepared at the
		 * end would be held, unused, at the peak) */
		size_t left = p->st->m->graph_src->len - p->parsed_to;
		if (p->nchunks < NCHUNKS && !p->no_chunks &&
		    left >= ARENA_SOURCE_BYTES) {
			pthread_mutex_unlock(&p->lock);
			bool ready = prepare_step(p);
			pthread_mutex_lock(&p->lock);
			if (ready) { /* only the checker takes chunks meanwhile */
				p->chunks[p->nchunks++] = p->prep;
				p->prep = NULL;
			}
			continue;
		}
		pthread_cond_wait(&p->changed, &p->lock);
	}
	bool go = !p->stop;
	p->filling = go;
	pthread_mutex_unlock(&p->lock);
	return go ? &filled(p)->arena : NULL;
}

/* Parser: hands the batch being filled over. */
static void pipe_send(Pipe *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->filling && filled(p)->n) {
		p->sent++;
		pthread_cond_broadcast(&p->changed);
	}
	p->filling = false;
	pthread_mutex_unlock(&p->lock);
}

/* Parser: a statement, into the batch (the nodes are already in its
 * arena). */
static bool pipe_stmt(void *ctx, AstAssign *s, Arena *scratch)
{
	(void)scratch;
	Pipe *p = ((Streamer *)ctx)->pipe;
	Batch *b = filled(p);
	b->stmts[b->n++] = *s;
	p->parsed_to = (size_t)s->loc.off + s->loc.len;
	if (b->n == p->batch_stmts)
		pipe_send(p);
	return !__atomic_load_n(&p->stop, __ATOMIC_RELAXED);
}

static void pipe_parse(Pipe *p)
{
	Streamer *st = p->st;
	Model *m = st->m;
	ParseStream stream = { pipe_begin, pipe_stmt, st, pipe_arena };
	ParseOptions po = { .lenient = st->opt->lenient,
			  .max_nesting = st->opt->max_nesting };
	st->res = parse_document_streamed(m->graph_src, &po, &m->syntax,
					  &m->interner, &p->diags, &stream);
}

static void *parser_main(void *arg)
{
	Pipe *p = arg;
	util_heap_share(&p->heap_lock);
	UtilRecover r;
	util_recover_push(&r, p->heap);
	if (setjmp(r.jb)) {
		p->out_of_memory = true;
	} else {
		pipe_parse(p);
		util_recover_pop(&r);
	}
	pipe_send(p);
	pthread_mutex_lock(&p->lock);
	p->parsed = true;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	util_heap_share(NULL);
	return NULL;
}

/* Checker: a chunk for its arena, faulted in by the parser (the source
 * of m->arena during the pass); NULL when there is none. */
static void *pipe_chunk(void *ctx)
{
	Pipe *p = ctx;
	pthread_mutex_lock(&p->lock);
	void *c = p->nchunks ? p->chunks[--p->nchunks] : NULL;
	pthread_mutex_unlock(&p->lock);
	return c;
}

/* Checker: the next batch parsed, NULL when there is none left. */
static Batch *pipe_next(Pipe *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->done == p->sent && !p->parsed)
		pthread_cond_wait(&p->changed, &p->lock);
	Batch *b = p->done < p->sent ? &p->batches[p->done % NBATCHES] : NULL;
	pthread_mutex_unlock(&p->lock);
	return b;
}

/* Checker: the batch is checked; its arena goes back to the parser. */
static void pipe_done(Pipe *p, Batch *b)
{
	arena_reset(&b->arena);
	b->n = 0;
	pthread_mutex_lock(&p->lock);
	p->done++;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

/* Checker: wants no more; the parser stops at its next statement. */
static void pipe_stop(Pipe *p)
{
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->stop, true, __ATOMIC_RELAXED); /* pipe_stmt */
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

/* The heap, the interner and the checker's arena: shared with the
 * parser's thread (lock, the pipe), or this thread's alone (NULL). */
static void pipe_share(Pipe *p, bool shared)
{
	Model *m = p->st->m;
	util_heap_share(shared ? &p->heap_lock : NULL);
	m->interner.lock = shared ? &p->intern_lock : NULL;
	m->arena.source = shared ? pipe_chunk : NULL;
	m->arena.source_ctx = shared ? p : NULL;
}

/* Stops the parser and waits for it; the heap and the interner are this
 * thread's alone again. Also the cleanup of a failed allocation. */
static void pipe_join(void *arg)
{
	Pipe *p = arg;
	pipe_stop(p);
	pthread_join(p->thread, NULL);
	pipe_share(p, false);
}

/* Checker: begins the pass when the parser has the document up to the
 * graph's body. */
static bool pipe_begun(Pipe *p)
{
	pthread_mutex_lock(&p->lock);
	while (!p->so_far && !p->parsed)
		pthread_cond_wait(&p->changed, &p->lock);
	const ParseResult *so_far = p->so_far;
	pthread_mutex_unlock(&p->lock);
	bool ok = so_far && on_begin(p->st, so_far);
	pthread_mutex_lock(&p->lock);
	p->begun = ok ? 1 : -1;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return ok;
}

/* The nodes of a statement were written on the parser's core: asking
 * for them ahead spares the checker a wait at each (they follow the
 * statement's first node in the batch's arena, a few hundred bytes). */
static void prefetch_nodes(const AstAssign *s)
{
	const char *p = (const char *)s->lhs;
	for (size_t k = 0; k < 8; k++)
		__builtin_prefetch(p + 64 * k);
}

/* Checks the statements as they come, until the parser is done or a
 * statement fails. */
static bool pipe_check(Pipe *p)
{
	Streamer *st = p->st;
	if (!pipe_begun(p))
		return false;
	Arena scratch;
	arena_init(&scratch);
	bool ok = true;
	for (Batch *b; ok && (b = pipe_next(p)); pipe_done(p, b)) {
		for (size_t i = 0; ok && i < b->n; i++) {
			if (i + 2 < b->n)
				prefetch_nodes(&b->stmts[i + 2]);
			ok = on_stmt(st, &b->stmts[i], &scratch);
			arena_reset(&scratch);
		}
	}
	arena_free(&scratch);
	return ok;
}

/* Whether the pass parses on a thread of its own: for a large text, on
 * the stack a thread gets by default (enough for the default nesting). */
static bool two_threads(const Streamer *st)
{
	const ModelOptions *opt = st->opt;
	if (opt->threads == MODEL_THREADS_ONE ||
	    opt->max_nesting > PARSE_DEFAULT_NESTING)
		return false;
	return opt->threads == MODEL_THREADS_TWO ||
	       st->m->graph_src->len >= PIPE_MIN_BYTES;
}

/* The pass, with the parser on a thread of its own. False: no thread. */
static bool pass_two_threads(Streamer *st)
{
	Pipe p;
	memset(&p, 0, sizeof(p));
	p.st = st;
	p.heap = util_heap_current();
	p.batch_stmts = batch_stmts(st->m->graph_src->len);
	p.batches = util_calloc(NBATCHES, sizeof(Batch));
	for (size_t i = 0; i < NBATCHES; i++) {
		p.batches[i].stmts = util_malloc(p.batch_stmts * sizeof(AstAssign));
		arena_reserve(&p.batches[i].arena, p.batch_stmts * STMT_TREE_BYTES);
	}
	pthread_spin_init(&p.heap_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&p.intern_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.changed, NULL);
	diag_list_init(&p.diags, 1);
	st->pipe = &p;
	pipe_share(&p, true);
	bool started = pthread_create(&p.thread, NULL, parser_main, &p) == 0;
	bool ok = false;
	if (started) {
		UtilCleanup c;
		util_cleanup_push(&c, pipe_join, &p);
		ok = pipe_check(&p);
		util_cleanup_pop(&c);
		pipe_join(&p);
	} else {
		pipe_share(&p, false);
	}
	st->pipe = NULL;
	for (size_t i = 0; i < p.nchunks; i++)
		util_free(p.chunks[i]);
	util_free(p.prep);
	ok = ok && p.diags.len == 0 && !p.out_of_memory;
	diag_list_free(&p.diags);
	for (size_t i = 0; i < NBATCHES; i++) {
		arena_free(&p.batches[i].arena);
		util_free(p.batches[i].stmts);
	}
	util_free(p.batches);
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.lock);
	pthread_spin_destroy(&p.intern_lock);
	pthread_spin_destroy(&p.heap_lock);
	if (p.out_of_memory)
		util_oom(); /* as if it had failed here */
	if (!started)
		return false;
	st->res.streamed = st->res.streamed && ok;
	return true;
}

/* The pass: the parse drives on_begin and on_stmt; then what must hold at
 * the end of the body, and the flat graph, kept only when nothing at all
 * was reported. */
static void pass(Streamer *st)
{
	Model *m = st->m;
	/* a name for every 64 bytes of text (a generated graph has one for
	 * every 66): the table does not grow meanwhile, by copying, and not
	 * at all while both threads use it */
	intern_reserve(&m->interner, m->graph_src->len / 64);
	st->threads = 2;
	if (!two_threads(st) || !pass_two_threads(st)) {
		st->threads = 1;
		ParseStream stream = { on_begin, on_stmt, st, NULL };
		ParseOptions po = { .lenient = st->opt->lenient,
				  .max_nesting = st->opt->max_nesting };
		st->res = parse_document_streamed(m->graph_src, &po, &m->arena,
						  &m->interner, &m->diags,
						  &stream);
	}
	bool ok = st->res.streamed && st->res.syntax_ok && quiet(st);
	if (st->sg)
		ok = sema_end(st->sg) && ok && quiet(st);
	if (st->fs) {
		FlatGraph *g = flatten_end(st->fs);
		if (ok && quiet(st))
			st->g = g;
	}
}

bool model_check_streamed(Model *m, const ModelOptions *opt)
{
	Streamer st;
	memset(&st, 0, sizeof(st));
	st.m = m;
	st.opt = opt;
	st.so.lenient = opt->lenient;
	st.fo = opt->flatten;
	if (!st.fo.max_depth)
		st.fo.max_depth = FLATTEN_DEFAULT_MAX_DEPTH;
	st.fo.lenient = opt->lenient;
	st.before = diag_count(&m->diags);
	DiagMark mark = diag_mark(&m->diags);
	/* on this thread: an expansion deeper than its stack allows is
	 * E0806 here, and the whole check that follows (stages.c) runs the
	 * evaluator on a deep stack */
	pass(&st);
	if (st.g) {
		m->parse = st.res;
		m->flat = st.g;
		m->pass_threads = st.threads;
		return true;
	}
	/* forget the pass: its memory, its names, what it reported */
	if (m->checked)
		sema_free(&m->prog);
	m->checked = false;
	m->quant = NULL;
	memset(&m->parse, 0, sizeof(m->parse));
	memset(&m->stdlib, 0, sizeof(m->stdlib));
	intern_free(&m->interner);
	arena_free(&m->arena);
	arena_free(&m->names);
	arena_free(&m->syntax);
	arena_init(&m->arena);
	arena_init(&m->names);
	arena_init(&m->syntax);
	intern_init(&m->interner, &m->names);
	diag_rewind(&m->diags, mark);
	return false;
}
