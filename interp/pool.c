/*
 * pool.c - the interpreter's worker threads. A kernel hands a job of
 * `parts` independent parts to interp_parallel: the T threads (the
 * calling one and T - 1 workers) take the parts in order, each the next
 * one not yet taken as soon as it is free, and the call returns when all
 * are done. A kernel may thus cut its work in more parts than threads
 * so that a thread slowed by the host (one of this VM's two processors
 * runs a third slower than the other at times) takes fewer. Which
 * thread runs a part never changes what it computes: kernels split
 * their work so that each result item is computed by one part in one
 * order, so results depend on neither the number of threads nor the
 * timing; scratch memory per thread is indexed by interp_slot().
 *
 * The workers start when the interpreter is made (interp_pool_start)
 * and stop in interp_free. A new thread is slow to come up to speed:
 * started at the first job, on this VM the worker took none of the
 * parts of mobilenet_v3_small's first cycle (the calling thread had
 * done each before it came), so its start belongs to the load, like
 * OpenBLAS's. Between jobs they poll for up to POOL_SPIN_NS before they
 * sleep on a condition variable, and so does the calling thread waiting
 * for them: the steps of a network follow each other within
 * microseconds, and waking a sleeping thread costs tens of them (on a
 * two-core VM, waking at every step doubled efficientnet_b0's time).
 */
#include "interp/interp_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Threads at most, the calling one included. */
#define POOL_MAX_THREADS 64

/* How long a thread polls for the next job, or for the end of one,
 * before it sleeps (ns). */
#define POOL_SPIN_NS 2000000

typedef struct Worker {
	struct InterpPool *p;
	int id;                     /* 1 .. nworkers */
	pthread_t tid;
} Worker;

struct InterpPool {
	Worker *workers;
	int nworkers;
	pthread_mutex_t mu;
	pthread_cond_t wake, done;
	atomic_uint job;            /* incremented for each job */
	atomic_uint pending;        /* workers not yet through the job */
	atomic_bool stop;
	/* the job */
	InterpPart fn;
	void *ctx;
	int parts;
	atomic_int next;            /* the next part not taken */
};

/* The running thread's slot: 0 for the calling thread, a worker's id. */
static _Thread_local int slot;

int interp_slot(void)
{
	return slot;
}

/* Polls *a for up to POOL_SPIN_NS until (*a == v) == equal; whether it
 * came to be. */
static bool poll_for(atomic_uint *a, unsigned v, bool equal)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 1;; i++) {
		if ((atomic_load(a) == v) == equal)
			return true;
		if (i % 256 == 0) {
			sched_yield();
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000000000 + (t.tv_nsec - t0.tv_nsec) >= POOL_SPIN_NS)
				return false;
		}
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
		__builtin_ia32_pause();
#endif
	}
}

static void run_parts(InterpPool *p)
{
	for (int part; (part = atomic_fetch_add(&p->next, 1)) < p->parts;)
		p->fn(p->ctx, part, p->parts);
}

static void *worker_main(void *arg)
{
	const Worker *w = arg;
	InterpPool *p = w->p;
	unsigned seen = 0;
	slot = w->id;
	for (;;) {
		unsigned job = seen;
		if (poll_for(&p->job, seen, false))
			job = atomic_load(&p->job);
		else {
			pthread_mutex_lock(&p->mu);
			while (atomic_load(&p->job) == seen && !atomic_load(&p->stop))
				pthread_cond_wait(&p->wake, &p->mu);
			job = atomic_load(&p->job);
			pthread_mutex_unlock(&p->mu);
		}
		if (atomic_load(&p->stop))
			return NULL;
		seen = job;
		run_parts(p);
		if (atomic_fetch_sub(&p->pending, 1) == 1) {
			pthread_mutex_lock(&p->mu);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->mu);
		}
	}
}

int interp_threads(const Interp *it)
{
	long n = it->opt.threads > 0 ? it->opt.threads : sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)n;
}

static void pool_stop(InterpPool *p)
{
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->stop, true);
	atomic_fetch_add(&p->job, 1); /* for the workers polling */
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nworkers; i++)
		pthread_join(p->workers[i].tid, NULL);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p->workers);
	free(p);
}

/* The pool of it, started if need be; NULL when it runs on one thread
 * or no thread could be started (jobs then run on the calling thread). */
static InterpPool *pool_of(Interp *it)
{
	if (it->pool || it->pool_failed)
		return it->pool;
	it->pool_failed = true; /* until it works */
	int n = interp_threads(it);
	InterpPool *p = n > 1 ? calloc(1, sizeof(*p)) : NULL;
	if (!p)
		return NULL;
	p->workers = calloc((size_t)n - 1, sizeof(Worker));
	if (!p->workers || pthread_mutex_init(&p->mu, NULL) != 0) {
		free(p->workers);
		free(p);
		return NULL;
	}
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->done, NULL);
	atomic_init(&p->job, 0);
	atomic_init(&p->pending, 0);
	atomic_init(&p->stop, false);
	for (int i = 0; i < n - 1; i++) {
		p->workers[i] = (Worker){ .p = p, .id = i + 1 };
		if (pthread_create(&p->workers[i].tid, NULL, worker_main, &p->workers[i]) != 0)
			break;
		p->nworkers = i + 1;
	}
	if (p->nworkers == 0) {
		pool_stop(p);
		return NULL;
	}
	it->pool = p;
	it->pool_failed = false;
	return p;
}

void interp_parallel(Interp *it, int parts, InterpPart fn, void *ctx)
{
	InterpPool *p = parts > 1 ? pool_of(it) : NULL;
	if (!p) {
		for (int part = 0; part < parts; part++)
			fn(ctx, part, parts);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->ctx = ctx;
	p->parts = parts;
	atomic_store(&p->next, 0);
	atomic_store(&p->pending, (unsigned)p->nworkers);
	atomic_fetch_add(&p->job, 1);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	run_parts(p);
	if (!poll_for(&p->pending, 0, true)) {
		pthread_mutex_lock(&p->mu);
		while (atomic_load(&p->pending) != 0)
			pthread_cond_wait(&p->done, &p->mu);
		pthread_mutex_unlock(&p->mu);
	}
}

static void noop_part(void *ctx, int part, int parts)
{
	(void)ctx, (void)part, (void)parts;
}

void interp_pool_start(Interp *it)
{
	/* a job of a part a thread starts them */
	interp_parallel(it, interp_threads(it), noop_part, NULL);
}

void interp_pool_free(Interp *it)
{
	if (it->pool)
		pool_stop(it->pool);
	it->pool = NULL;
}
