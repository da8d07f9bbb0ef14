/*
 * replay.c - runs one libFuzzer target's LLVMFuzzerTestOneInput without
 * libFuzzer: each argument is an input file, or a folder whose regular
 * files are all inputs (testsuite/fuzz/regressions/TARGET/). Linked with
 * one target's object it makes $(BUILD)/tests/replay_TARGET, which
 * `make check` runs over the saved crashes and tricky inputs, with the
 * normal compiler and flags (sanitizers too, under SANITIZE=). A crash
 * ends the program as the crash would, after a line naming the input
 * (from a signal handler, or the sanitizers' death callback); otherwise
 * the exit status is 0, or 2 when an argument cannot be read.
 */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The sanitizers' hook, called before they end the program (a weak
 * reference: absent from a plain build). */
void __sanitizer_set_death_callback(void (*callback)(void))
	__attribute__((weak));

static const char *current; /* the input being replayed */

/* Names the input that crashed (async-signal-safe: write only). */
static void say_crashed(void)
{
	static const char what[] = "replay: crashed on input ";
	if (!current)
		return;
	if (write(2, what, sizeof(what) - 1) < 0 ||
	    write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0)
		return;
}

static void on_signal(int sig)
{
	say_crashed();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Traps and aborts are named by the handler; under the sanitizers, which
 * catch the other signals themselves, by their death callback. */
static void name_crashes(void)
{
	int sigs[] = { SIGILL, SIGABRT, SIGSEGV, SIGBUS, SIGFPE };
	size_t n = sizeof(sigs) / sizeof(sigs[0]);
	if (__sanitizer_set_death_callback) {
		__sanitizer_set_death_callback(say_crashed);
		n = 2;
	}
	for (size_t i = 0; i < n; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

/* Reads the file at path and passes its bytes to the target. */
static bool replay_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return false;
	}
	size_t len = 0, cap = 4096;
	uint8_t *buf = malloc(cap);
	size_t k;
	while (buf && (k = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += k;
		if (len == cap) {
			uint8_t *more = realloc(buf, cap * 2);
			if (!more) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = more;
			cap *= 2;
		}
	}
	bool ok = buf && !ferror(fp);
	fclose(fp);
	if (!ok) {
		fprintf(stderr, "%s: cannot read it\n", path);
		free(buf);
		return false;
	}
	/* a copy of exactly len bytes, as libFuzzer gives, so that a read
	 * past the end is caught by the sanitizers */
	uint8_t *data = malloc(len ? len : 1);
	if (!data) {
		free(buf);
		return false;
	}
	memcpy(data, buf, len);
	free(buf);
	current = path;
	LLVMFuzzerTestOneInput(data, len);
	current = NULL;
	free(data);
	return true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file in the folder dir, in name order. */
static bool replay_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		return false;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **more = realloc(names, cap * sizeof(*names));
			if (!more) {
				ok = false;
				break;
			}
			names = more;
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		names[n] = malloc(len);
		if (!names[n]) {
			ok = false;
			break;
		}
		snprintf(names[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (ok && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			ok = replay_file(names[i]);
			*count += ok;
		}
		free(names[i]);
	}
	free(names);
	return ok;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
		return 2;
	}
	name_crashes();
	size_t count = 0;
	bool ok = true;
	for (int i = 1; i < argc && ok; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			ok = replay_dir(argv[i], &count);
		else if ((ok = replay_file(argv[i])))
			count++;
	}
	if (!ok)
		return 2;
	const char *slash = strrchr(argv[0], '/');
	printf("%s: %zu input%s replayed\n", slash ? slash + 1 : argv[0], count,
	       count == 1 ? "" : "s");
	return 0;
}
