/*
 * report.c - the verdicts and diagnostics of checked models as one JSON
 * document (our own layout, see nnef(3)) or as SARIF 2.1.0 (the OASIS
 * Static Analysis Results Interchange Format), written without a JSON
 * library: the writer below escapes every string and replaces bytes that
 * are not UTF-8 (a message may quote a broken document) by U+FFFD.
 */
#include "api/api_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2
		   : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
	if (!len || len > n || (len == 2 && s[0] < 0xC2))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if (len == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
		return 0; /* overlong, or a surrogate */
	if (len == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || s[0] > 0xF4 || (s[0] == 0xF4 && s[1] >= 0x90)))
		return 0;
	return len;
}

static void json_str(StrBuf *b, const char *s)
{
	if (!s) {
		sb_puts(b, "null");
		return;
	}
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	sb_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len = utf8_len(p + i, n - i);
		if (c == '"' || c == '\\') {
			sb_putc(b, '\\');
			sb_putc(b, (char)c);
		} else if (c == '\n') {
			sb_puts(b, "\\n");
		} else if (c == '\t') {
			sb_puts(b, "\\t");
		} else if (c < 0x20 || c == 0x7F) {
			sb_printf(b, "\\u%04x", c);
		} else if (len) {
			sb_putn(b, s + i, len);
			i += len;
			continue;
		} else {
			sb_puts(b, "\\ufffd");
		}
		i++;
	}
	sb_putc(b, '"');
}

static const char *level_name(nnef_level l)
{
	return l == NNEF_ERROR ? "error" : l == NNEF_WARNING ? "warning" : "note";
}

static const char *verdict_name(nnef_status s)
{
	return s == NNEF_VALID ? "valid" : s == NNEF_INVALID ? "invalid" : "unreadable";
}

static const char *const dtype_names[] = { "scalar", "integer", "logical" };

/* ---- our own layout ---------------------------------------------------------- */

/* The file, and the position in it when there is one (line 0: none). */
static void json_location(StrBuf *b, nnef_location l)
{
	sb_puts(b, "\"file\": ");
	json_str(b, l.file);
	if (l.line)
		sb_printf(b, ", \"line\": %u, \"column\": %u, \"end_line\": %u, \"end_column\": %u", l.line, l.column, l.end_line, l.end_column);
}

static void json_diag(StrBuf *b, const nnef_diag *d)
{
	sb_printf(b, "{\"level\": \"%s\", \"code\": \"%s\", \"summary\": ", level_name(nnef_diag_level(d)), nnef_diag_code(d));
	json_str(b, nnef_diag_summary(d));
	sb_puts(b, ", \"message\": ");
	json_str(b, nnef_diag_message(d));
	sb_puts(b, ", ");
	nnef_location l = nnef_diag_location(d);
	if (!l.file) /* a file, without a position in it */
		l.file = nnef_diag_file(d);
	json_location(b, l);
	sb_puts(b, ", \"hint\": ");
	json_str(b, nnef_diag_hint(d));
	sb_puts(b, ", \"notes\": [");
	for (size_t i = 0; i < nnef_diag_note_count(d); i++) {
		sb_puts(b, i ? ", {\"message\": " : "{\"message\": ");
		json_str(b, nnef_diag_note_message(d, i));
		sb_puts(b, ", ");
		json_location(b, nnef_diag_note_location(d, i));
		sb_putc(b, '}');
	}
	sb_puts(b, "]}");
}

/* The tensors of g the document names, or with all every tensor. */
static void json_tensors(StrBuf *b, const nnef_graph *g, bool all)
{
	sb_puts(b, ",\n      \"tensors\": [");
	size_t listed = 0;
	for (size_t i = 0; g && i < nnef_graph_tensor_count(g); i++) {
		const nnef_tensor_info *t = nnef_graph_tensor(g, i);
		if (!all && !nnef_tensor_info_named(t))
			continue;
		sb_puts(b, listed++ ? ",\n        {\"name\": " : "\n        {\"name\": ");
		json_str(b, nnef_tensor_info_name(t));
		sb_printf(b, ", \"type\": \"%s\"", dtype_names[nnef_tensor_info_dtype(t)]);
		if (nnef_tensor_info_datum_type(t))
			sb_printf(b, ", \"datum_type\": \"%s\"", nnef_tensor_info_datum_type(t));
		sb_puts(b, ", \"shape\": ");
		if (!nnef_tensor_info_shape_known(t)) {
			sb_puts(b, "null}");
			continue;
		}
		sb_putc(b, '[');
		for (size_t d = 0; d < nnef_tensor_info_rank(t); d++) {
			if (d)
				sb_puts(b, ", ");
			if (nnef_tensor_info_dim_text(t, d))
				json_str(b, nnef_tensor_info_dim_text(t, d)); /* a symbolic extent */
			else
				sb_printf(b, "%lld", (long long)nnef_tensor_info_dim(t, d));
		}
		sb_puts(b, "]}");
	}
	sb_puts(b, "]");
}

static void json_use(StrBuf *b, nnef_port_use u)
{
	sb_puts(b, "{\"operation\": ");
	json_str(b, u.op);
	sb_puts(b, ", \"target_operation\": ");
	json_str(b, u.target_op);
	sb_puts(b, ", \"cite\": ");
	json_str(b, u.cite);
	if (u.problem) {
		sb_puts(b, ", \"problem\": ");
		json_str(b, u.problem);
	} else {
		sb_puts(b, ", \"note\": ");
		json_str(b, u.note);
	}
	sb_printf(b, ", \"count\": %zu, \"first\": {", u.count);
	json_location(b, u.first);
	sb_puts(b, "}}");
}

/* The portability reports of a model (nnef_port). */
static void json_ports(StrBuf *b, const nnef_model *m)
{
	sb_puts(b, ",\n      \"portability\": [");
	for (size_t i = 0; i < nnef_model_port_count(m); i++) {
		const nnef_port *p = nnef_model_port(m, i);
		sb_puts(b, i ? ",\n        {\"target\": " : "\n        {\"target\": ");
		json_str(b, nnef_port_target(p));
		sb_puts(b, ", \"title\": ");
		json_str(b, nnef_port_title(p));
		sb_printf(b, ", \"failed\": %s, \"operations\": %zu, \"portable\": %zu,\n         \"mappings\": [", nnef_port_failed(p) ? "true" : "false", nnef_port_operations(p), nnef_port_portable(p));
		for (size_t k = 0; k < nnef_port_mapping_count(p); k++) {
			sb_puts(b, k ? ",\n           " : "\n           ");
			json_use(b, nnef_port_mapping(p, k));
		}
		sb_puts(b, "],\n         \"problems\": [");
		for (size_t k = 0; k < nnef_port_problem_count(p); k++) {
			sb_puts(b, k ? ",\n           " : "\n           ");
			json_use(b, nnef_port_problem(p, k));
		}
		sb_puts(b, "]}");
	}
	sb_puts(b, "]");
}

static void json_model(StrBuf *b, const nnef_model *m, unsigned flags)
{
	const nnef_diags *ds = nnef_model_diags(m);
	sb_puts(b, "    {\n      \"path\": ");
	json_str(b, nnef_model_path(m));
	sb_printf(b, ",\n      \"dialect\": \"%s\"", nnef_dialect_name(nnef_model_dialect(m)));
	sb_printf(b, ",\n      \"verdict\": \"%s\",\n      \"errors\": %zu,\n      \"warnings\": %zu,\n      \"errors_not_shown\": %zu,\n      \"diagnostics\": [", verdict_name(nnef_model_status(m)), nnef_diags_errors(ds), nnef_diags_warnings(ds), nnef_diags_hidden_errors(ds));
	size_t n = nnef_diags_count(ds);
	for (size_t i = 0; i < n; i++) {
		sb_puts(b, i ? ",\n        " : "\n        ");
		json_diag(b, nnef_diags_get(ds, i));
	}
	sb_puts(b, "]");
	if (flags & NNEF_REPORT_SHAPES)
		json_tensors(b, nnef_model_graph(m), flags & NNEF_REPORT_ALL_TENSORS);
	if (nnef_model_port_count(m))
		json_ports(b, m);
	sb_puts(b, "\n    }");
}

typedef void ReportFn(StrBuf *b, const nnef_model *const *models, size_t n,
		      unsigned flags);

typedef struct Report {
	ReportFn *write;
	const nnef_model *const *models;
	size_t n;
	unsigned flags;
} Report;

static void write_report(StrBuf *out, const void *ctx)
{
	const Report *r = ctx;
	r->write(out, r->models, r->n, r->flags);
}

/* The report that write makes, as a string of malloc's; NULL when out of
 * memory (whatever writing allocated is given back). */
static char *report(ReportFn *write, const nnef_model *const *models,
		    size_t n, unsigned flags)
{
	Report r = { write, models, n, flags };
	return api_print(write_report, &r);
}

static void json_report(StrBuf *b, const nnef_model *const *models, size_t n,
			unsigned flags)
{
	sb_printf(b, "{\n  \"tool\": \"nnefkit\",\n  \"version\": \"%s\",\n  \"models\": [", NNEF_VERSION);
	for (size_t i = 0; i < n; i++) {
		sb_puts(b, i ? ",\n" : "\n");
		json_model(b, models[i], flags);
	}
	sb_puts(b, "\n  ]\n}\n");
}

char *nnef_report_json(const nnef_model *const *models, size_t n,
		       unsigned flags)
{
	return report(json_report, models, n, flags);
}

/* ---- statistics of a run (nnef-run --statistics) ------------------------------------ */

static void json_run_stats(StrBuf *b, const void *ctx)
{
	const nnef_runner *r = ctx;
	bool first = true;
	sb_putc(b, '{');
	for (size_t i = 0; i < nnef_runner_count(r, NNEF_RUN_TENSORS); i++) {
		nnef_stats st;
		if (!nnef_runner_stats(r, i, &st))
			continue;
		sb_puts(b, first ? "\n  " : ",\n  ");
		first = false;
		json_str(b, nnef_runner_name(r, NNEF_RUN_TENSORS, i));
		sb_puts(b, ": ");
		sb_put_json_stats(b, st.min, st.max, st.mean, st.std, st.count, st.nan, st.inf);
	}
	sb_puts(b, first ? "}\n" : "\n}\n");
}

char *nnef_runner_stats_json(const nnef_runner *r)
{
	return r->statistics && !r->failed ? api_print(json_run_stats, r) : NULL;
}

/* ---- SARIF 2.1.0 ------------------------------------------------------------------ */

/* A relative URI reference for a path: unreserved characters and '/'
 * kept, every other byte percent-encoded. */
static void uri_str(StrBuf *b, const char *path)
{
	static const char keep[] = "-._~/";
	sb_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(keep, *p))
			sb_putc(b, (char)*p);
		else
			sb_printf(b, "%%%02X", *p);
	}
	sb_putc(b, '"');
}

/* The 1-based column, in code points, of the byte offset off at byte
 * column col of its line (SARIF's columnKind "unicodeCodePoints"): one per
 * UTF-8 sequence before it, one per byte that is not UTF-8 (which the
 * log's text shows as U+FFFD). An offset inside a sequence is that code
 * point's column, or with up (an end) the next one's. */
static unsigned code_point_column(const SourceFile *f, size_t off,
				  unsigned col, bool up)
{
	if (col < 1 || off < col - 1 || off > f->len)
		return col;
	const unsigned char *line = (const unsigned char *)f->text + off - (col - 1);
	size_t n = col - 1, left = f->len - (off - n);
	unsigned cp = 1;
	for (size_t i = 0; i < n; cp++) {
		size_t k = utf8_len(line + i, left - i);
		i += k ? k : 1;
		if (i > n && !up)
			break;
	}
	return cp;
}

/* A physicalLocation object: the file and region of l, or only the file
 * fallback (the file the diagnostic is about, else the model's path) when
 * l has no position. */
static void sarif_physical(StrBuf *b, Loc l, const char *fallback)
{
	nnef_location r = api_location(l);
	sb_puts(b, "{\"artifactLocation\": {\"uri\": ");
	uri_str(b, r.file ? r.file : fallback);
	sb_putc(b, '}');
	if (r.file) {
		unsigned c = code_point_column(l.file, l.off, r.column, false);
		unsigned e = code_point_column(l.file, (size_t)l.off + l.len, r.end_column, true);
		sb_printf(b, ", \"region\": {\"startLine\": %u, \"startColumn\": %u, \"endLine\": %u, \"endColumn\": %u}", r.line, c, r.end_line, e);
	}
	sb_putc(b, '}');
}

static void sarif_message(StrBuf *b, const char *text, const char *hint)
{
	sb_puts(b, "{\"text\": ");
	if (hint) {
		StrBuf t;
		sb_init(&t);
		sb_printf(&t, "%s (hint: %s)", text, hint);
		json_str(b, sb_str(&t));
		sb_free(&t);
	} else {
		json_str(b, text);
	}
	sb_putc(b, '}');
}

/* The place of note i that machine-readable output gives (that of an
 * "in expansion of" note is the call it names). */
static Loc note_at(const Diag *d, size_t i)
{
	return d->notes[i].loc.file ? d->notes[i].loc : d->notes[i].at;
}

/* A diagnostic inside the standard library is placed where the user's
 * document leads to it: the outermost "in expansion of" note in a file
 * other than the standard library. Its index, or nnotes when it stays. */
static size_t sarif_user_note(const nnef_model *m, const Diag *d)
{
	const SourceFile *std = m->m.stdlib_src;
	size_t found = d->nnotes;
	if (!std || d->loc.file != std)
		return found;
	for (size_t i = 0; i < d->nnotes; i++) {
		const DiagNote *n = &d->notes[i];
		if (!n->loc.file && n->at.file && n->at.file != std)
			found = i;
	}
	return found;
}

static void sarif_result(StrBuf *b, const nnef_model *m, const nnef_diag *nd)
{
	const Diag *d = (const Diag *)(const void *)nd;
	sb_printf(b, "{\"ruleId\": \"%s\", \"level\": \"%s\", \"message\": ", nnef_diag_code(nd), level_name(nnef_diag_level(nd)));
	sarif_message(b, nnef_diag_message(nd), nnef_diag_hint(nd));
	size_t user = sarif_user_note(m, d);
	sb_puts(b, ", \"locations\": [{\"physicalLocation\": ");
	sarif_physical(b, user < d->nnotes ? d->notes[user].at : d->loc, d->path ? d->path : nnef_model_path(m));
	sb_puts(b, "}]");
	size_t nn = d->nnotes;
	for (size_t i = 0; i < nn; i++) {
		Loc l = note_at(d, i);
		sb_printf(b, "%s{\"id\": %zu, \"message\": ", i ? ", " : ", \"relatedLocations\": [", i);
		sarif_message(b, d->notes[i].msg, NULL);
		if (l.file) {
			sb_puts(b, ", \"physicalLocation\": ");
			sarif_physical(b, l, NULL);
		}
		sb_putc(b, '}');
	}
	if (user < nn) { /* the place in the standard library, related */
		sb_printf(b, ", {\"id\": %zu, \"message\": {\"text\": \"where it happens, inside the standard library\"}, \"physicalLocation\": ", nn);
		sarif_physical(b, d->loc, NULL);
		sb_putc(b, '}');
	}
	sb_puts(b, nn ? "]}" : "}");
}

/* The rules: one per code used, in code order (ruleIndex not given). */
static void sarif_rules(StrBuf *b, const nnef_model *const *models, size_t n)
{
	size_t ncodes = 0, cap = 0;
	const nnef_diag **first = NULL; /* one diagnostic per distinct code */
	for (size_t k = 0; k < n; k++) {
		const nnef_diags *ds = nnef_model_diags(models[k]);
		for (size_t i = 0; i < nnef_diags_count(ds); i++) {
			const nnef_diag *d = nnef_diags_get(ds, i);
			size_t j = 0;
			while (j < ncodes && strcmp(nnef_diag_code(first[j]), nnef_diag_code(d)) != 0)
				j++;
			if (j < ncodes)
				continue;
			if (ncodes == cap)
				first = util_realloc(first, (cap = cap ? 2 * cap : 16) * sizeof(*first));
			first[ncodes++] = d;
		}
	}
	for (size_t j = 0; j < ncodes; j++) {
		sb_printf(b, "%s{\"id\": \"%s\", \"shortDescription\": {\"text\": ", j ? ",\n            " : "\n            ", nnef_diag_code(first[j]));
		json_str(b, nnef_diag_summary(first[j]));
		sb_puts(b, "}, \"helpUri\": \"man:nnef-diagnostics(7)\"}");
	}
	util_free(first);
}

static void sarif_report(StrBuf *b, const nnef_model *const *models,
			 size_t n, unsigned flags)
{
	(void)flags;
	sb_printf(b, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": {\n        \"driver\": {\n          \"name\": \"nnef-check\",\n          \"organization\": \"nnefkit\",\n          \"version\": \"%s\",\n          \"informationUri\": \"man:nnef-check(1)\",\n          \"rules\": [", NNEF_VERSION);
	sarif_rules(b, models, n);
	sb_puts(b, "]\n        }\n      },\n      \"columnKind\": \"unicodeCodePoints\",\n");
	/* the dialect the models were read in (the tools read all in one) */
	sb_printf(b, "      \"properties\": {\"dialect\": \"%s\"},\n      \"results\": [", nnef_dialect_name(n ? nnef_model_dialect(models[0]) : NNEF_DIALECT_KHRONOS));
	bool any = false;
	for (size_t k = 0; k < n; k++) {
		const nnef_diags *ds = nnef_model_diags(models[k]);
		for (size_t i = 0; i < nnef_diags_count(ds); i++) {
			sb_puts(b, any ? ",\n        " : "\n        ");
			sarif_result(b, models[k], nnef_diags_get(ds, i));
			any = true;
		}
	}
	sb_puts(b, "]\n    }\n  ]\n}\n");
}

char *nnef_report_sarif(const nnef_model *const *models, size_t n,
			unsigned flags)
{
	return report(sarif_report, models, n, flags);
}
