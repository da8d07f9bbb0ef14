/*
 * grammar.y - the NNEF grammar (spec Appendix A.2, compositional; the flat
 * grammar of A.1 is a subset, enforced afterwards by parse.c's extension
 * gating). Pure parser, no conflicts (%expect 0), custom syntax error
 * messages (worded in token_feed.c, which also feeds the tokens) with LAC so
 * that the "expected ..." lists are exact.
 *
 * Actions only build AST nodes. Two places accept more than the spec's
 * BNF so that parse.c can report a precise error instead of a bare syntax
 * error: the left-hand side of an assignment is parsed as expressions (and
 * checked to be an <lvalue-expr>), and default values as expressions
 * (checked to be <literal-expr>s); extension names may be separated by
 * commas (an error, or a warning with --lenient later). Top-level items
 * may come in any order and parse.c checks the order of spec 3.2.4.
 *
 * Operator precedence (spec 3.3.3 Built-in Operators), lowest first:
 *   x if c else y   (right-associative)
 *   in
 *   && ||
 *   < <= > >= == !=
 *   + -
 *   * /
 *   unary + - !
 *   ^               (right-associative: the spec does not say; we follow
 *                    the mathematical convention, so a^b^c = a^(b^c) and
 *                    -a^b = -(a^b))
 *   subscripts and invocations
 * Binary operators other than ^ associate to the left.
 */
%define api.pure full
%define api.prefix {parse_yy}
%define api.token.prefix {T_}
%define api.location.type {Loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {ParseState *ps}

%code requires {
#include "grammar/parse_internal.h"
}

%code provides {
static int parse_yylex(PARSE_YYSTYPE *lval, Loc *lloc, ParseState *ps);
static void parse_yyerror(Loc *lloc, ParseState *ps, const char *msg);
}

%code {
#include <string.h>

/* The parser's stack takes a few states per level of nesting: room for
 * the deepest nesting an option may allow (the feed stops the parse just
 * past the limit in force). */
#define YYMAXDEPTH (8 * PARSE_MAX_NESTING + 1000)
/* A deeper stack comes from the current heap, so that a failed allocation
 * in an action (which leaves the parse) cannot leak it. */
#define YYMALLOC util_malloc
#define YYFREE util_free

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                     \
	do {                                                            \
		if (N) {                                                \
			(Cur) = loc_join(YYRHSLOC(Rhs, 1), YYRHSLOC(Rhs, N)); \
		} else {                                                \
			(Cur) = loc_end(YYRHSLOC(Rhs, 0));              \
		}                                                       \
	} while (0)

#define NODE(kind, loc) parse_expr(ps, (kind), (loc))
/* A list built during the parse, moved into the arena. */
#define FINISH(v, T) ((T *)ast_vec_finish(ps->arena, &(v), sizeof(T)))
#define PUSH(v, x) ast_vec_push(&(v), &(x), sizeof(x))
#define DEPTH(parent, child)                                            \
	do {                                                            \
		if (!parse_depth(ps, (parent), (child)))                   \
			YYABORT;                                        \
	} while (0)
}

%union {
	Token tok;
	AstExpr *expr;
	AstType *type;
	AstTypeName tname;
	AstBuiltin builtin;
	AVec vec;
	AstArg arg;
	AstIter iter;
	AstParam param;
	AstDef *def;
	AstBody *body;
	struct {
		bool present;
		bool has_default;
		AstTypeName def;
		Loc loc;
	} generic;
}

/* The terminals are named after the lexer's token kinds (lexer/tokens.def),
 * which makes the map between the two a table generated from that file
 * (grammar_token, at the end). The order of these declarations numbers
 * the symbols, and a syntax error lists the tokens it expected in that
 * order: keep it. */
%token TK_EOF 0 "end of input"
%token <tok> TK_IDENT "identifier"
%token <tok> TK_INT "integer literal"
%token <tok> TK_REAL "real literal"
%token <tok> TK_STRING "string literal"
%token TK_TRUE "true"
%token TK_FALSE "false"
%token TK_KW_VERSION "version"
%token TK_KW_EXTENSION "extension"
%token TK_KW_GRAPH "graph"
%token TK_KW_FRAGMENT "fragment"
%token TK_KW_TENSOR "tensor"
%token TK_KW_INTEGER "integer"
%token TK_KW_SCALAR "scalar"
%token TK_KW_LOGICAL "logical"
%token TK_KW_STRING "string"
%token TK_KW_SHAPE_OF "shape_of"
%token TK_KW_LENGTH_OF "length_of"
%token TK_KW_RANGE_OF "range_of"
%token TK_KW_FOR "for"
%token TK_KW_IN "in"
%token TK_KW_YIELD "yield"
%token TK_KW_IF "if"
%token TK_KW_ELSE "else"
%token TK_ARROW "->"
%token TK_LE "<="
%token TK_GE ">="
%token TK_EQ "=="
%token TK_NE "!="
%token TK_AND "&&"
%token TK_OR "||"
%token TK_GENERIC_LT "generic <"
%token TK_LT "<"
%token TK_GT ">"
%token TK_PLUS "+"
%token TK_MINUS "-"
%token TK_STAR "*"
%token TK_SLASH "/"
%token TK_CARET "^"
%token TK_SEMI ";"
%token TK_RBRACE "}"
%token TK_COMMA ","
%token TK_LPAREN "("
%token TK_RPAREN ")"
%token TK_QUESTION "?"
%token TK_ASSIGN "="
%token TK_COLON ":"
%token TK_LBRACKET "["
%token TK_RBRACKET "]"
%token TK_LBRACE "{"
%token TK_NOT "!"
%token TK_STMT "assignment"
%token TK_QUANT_FILE "graph.quant"

%right "if" "else"
%left "in"
%left "&&" "||"
%left "<" ">" "<=" ">=" "==" "!="
%left "+" "-"
%left "*" "/"
%precedence UNARY
%right "^"

%type <expr> expr postfix primary literal index_expr
%type <vec> expr_list lhs_tuple args iters params results id_list ext_names
%type <vec> type_list stmts
%type <arg> arg
%type <iter> iter
%type <param> param result
%type <type> type_spec
%type <tname> type_name
%type <builtin> builtin
%type <def> fragment graph
%type <body> body frag_tail
%type <generic> generic_decl

/* Lists live in malloc'd buffers until their rule completes; symbols the
 * parser drops while recovering from an error free theirs here. */
%destructor { ast_vec_drop(&$$); } <vec>

%%

/* <document> ::= <version> <extension>* <fragment-definition>* <graph-definition>
 * Items are accepted in any order here; parse.c checks the order. */
document
	: items
	/* a quantization file (spec 5.3), read in PARSE_QUANT mode */
	| TK_QUANT_FILE quant_entries
	;

/* '"tensor"' ':' <invocation> ';', the invocation's arguments named
 * compile-time expressions (parse.c checks what the grammar cannot) */
quant_entries
	: %empty
	| quant_entries TK_STRING ":" expr ";"
		{ parse_quant_entry(ps, loc_join(@2, @5), &$2, $4); }
	| quant_entries error ";"   { yyerrok; }
	;

items
	: %empty
	| items item
	;

item
	: "version" TK_INT ";"
		{ parse_version(ps, @$, @2, true); }
	| "version" TK_REAL ";"
		{ parse_version(ps, @$, @2, false); }
	| "extension" ext_names ";"
		{ parse_extension(ps, @$, &$2); }
	/* A missing ';' (reported as such): keep the statement. */
	| "version" TK_INT error
		{ parse_version(ps, @$, @2, true); }
	| "version" TK_REAL error
		{ parse_version(ps, @$, @2, false); }
	| "extension" ext_names error
		{ parse_extension(ps, @$, &$2); }
	| fragment
		{ parse_def(ps, @$, $1); }
	| graph
		{ parse_def(ps, @$, $1); }
	| error ";"   { yyerrok; }
	| error "}"   { yyerrok; }
	;

/* <extension> ::= "extension" <identifier>+ ";" */
ext_names
	: TK_IDENT
		{ AstExtension e = { .name = $1.v.ident, .loc = @1 };
		  $$ = (AVec){ 0 }; PUSH($$, e); }
	| ext_names TK_IDENT
		{ AstExtension e = { .name = $2.v.ident, .loc = @2 };
		  $$ = $1; PUSH($$, e); }
	| ext_names "," TK_IDENT
		{ AstExtension e = { .name = $3.v.ident, .loc = @3,
				     .after_comma = true, .comma_loc = @2 };
		  $$ = $1; PUSH($$, e); }
	;

/* <fragment-definition> ::= <fragment-declaration> (<body> | ";")
 * <fragment-declaration> ::= "fragment" <identifier> [<generic-declaration>]
 *                            "(" <parameter-list> ")" "->" "(" <result-list> ")" */
fragment
	: "fragment" TK_IDENT generic_decl "(" params ")" "->" "(" results ")" frag_tail
		{ AstDef *d = ARENA_NEW(ps->arena, AstDef);
		  d->name = $2.v.ident; d->name_loc = @2;
		  d->keyword_loc = @1; d->loc = @$;
		  d->is_generic = $3.present;
		  d->has_generic_default = $3.has_default;
		  d->generic_default = $3.def; d->generic_loc = $3.loc;
		  d->nparams = $5.len; d->params = FINISH($5, AstParam);
		  d->nresults = $9.len; d->results = FINISH($9, AstParam);
		  d->body = $11;
		  $$ = d; }
	/* No parameter: tract's dialect (tract_core_properties()); an
	 * error in Khronos NNEF, reported by parse.c */
	| "fragment" TK_IDENT generic_decl "(" ")" "->" "(" results ")" frag_tail
		{ AstDef *d = ARENA_NEW(ps->arena, AstDef);
		  d->name = $2.v.ident; d->name_loc = @2;
		  d->keyword_loc = @1; d->loc = @$;
		  d->is_generic = $3.present;
		  d->has_generic_default = $3.has_default;
		  d->generic_default = $3.def; d->generic_loc = $3.loc;
		  d->no_params = true; d->params_loc = loc_join(@4, @5);
		  d->nresults = $8.len; d->results = FINISH($8, AstParam);
		  d->body = $10;
		  $$ = d; }
	/* A broken declaration: skip to its body, which is still parsed. */
	| "fragment" error frag_tail
		{ AstDef *d = ARENA_NEW(ps->arena, AstDef);
		  d->name = ps->frag_name ? ps->frag_name : intern_cstr(ps->interner, "?");
		  d->name_loc = @1; d->keyword_loc = @1; d->loc = @$;
		  d->body = $3; d->broken = true;
		  $$ = d; }
	;

frag_tail
	: ";"   { $$ = NULL; }
	| body  { $$ = $1; }
	;

/* <generic-declaration> ::= "<" "?" ["=" <type-name>] ">" */
generic_decl
	: %empty
		{ $$.present = false; $$.has_default = false;
		  $$.def = AST_TN_SCALAR; $$.loc = @$; }
	| TK_GENERIC_LT "?" ">"
		{ $$.present = true; $$.has_default = false;
		  $$.def = AST_TN_SCALAR; $$.loc = @$; }
	| "<" "?" "=" type_name ">"
		{ $$.present = true; $$.has_default = true;
		  $$.def = $4; $$.loc = @$; }
	;

/* <parameter-list> ::= <parameter> ("," <parameter>)* */
params
	: param             { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| params "," param  { $$ = $1; PUSH($$, $3); }
	;

/* <parameter> ::= <identifier> ":" <type-spec> ["=" <literal-expr>] */
param
	: TK_IDENT ":" type_spec
		{ $$ = (AstParam){ .name = $1.v.ident, .loc = @1, .type = $3 }; }
	| TK_IDENT ":" type_spec "=" expr
		{ $$ = (AstParam){ .name = $1.v.ident, .loc = @1, .type = $3,
				   .def = $5 }; }
	;

/* <result-list> ::= <result> ("," <result>)* */
results
	: result             { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| results "," result { $$ = $1; PUSH($$, $3); }
	;

/* <result> ::= <identifier> ":" <type-spec> */
result
	: TK_IDENT ":" type_spec
		{ $$ = (AstParam){ .name = $1.v.ident, .loc = @1, .type = $3 }; }
	;

/* <type-spec> ::= <type-name> | <tensor-type-spec> | <array-type-spec> | <tuple-type-spec> */
type_spec
	: type_name
		{ $$ = ast_type(ps->arena, AST_TYPE_NAME, @$); $$->name = $1; }
	| "tensor" "<" ">"
		{ $$ = ast_type(ps->arena, AST_TYPE_TENSOR, @$); }
	| "tensor" TK_GENERIC_LT type_name ">"
		{ $$ = ast_type(ps->arena, AST_TYPE_TENSOR, @$);
		  $$->has_item = true; $$->name = $3; }
	| "tensor" "<" type_name ">"
		{ $$ = ast_type(ps->arena, AST_TYPE_TENSOR, @$);
		  $$->has_item = true; $$->name = $3; }
	| type_spec "[" "]"
		{ $$ = ast_type(ps->arena, AST_TYPE_ARRAY, @$); $$->item = $1;
		  if (!parse_type_depth(ps, $$, $1)) YYABORT; }
	| "(" type_spec "," type_list ")"
		{ $$ = ast_type(ps->arena, AST_TYPE_TUPLE, @$);
		  AVec v = { 0 };
		  PUSH(v, $2);
		  for (size_t i = 0; i < $4.len; i++)
			  PUSH(v, ((AstType **)$4.data)[i]);
		  ast_vec_drop(&$4);
		  $$->nitems = v.len; $$->items = FINISH(v, AstType *);
		  for (size_t i = 0; i < $$->nitems; i++)
			  if (!parse_type_depth(ps, $$, $$->items[i])) YYABORT; }
	;

type_list
	: type_spec               { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| type_list "," type_spec { $$ = $1; PUSH($$, $3); }
	;

/* <type-name> ::= "integer" | "scalar" | "logical" | "string" | "?" */
type_name
	: "integer"   { $$ = AST_TN_INTEGER; }
	| "scalar"    { $$ = AST_TN_SCALAR; }
	| "logical"   { $$ = AST_TN_LOGICAL; }
	| "string"    { $$ = AST_TN_STRING; }
	| "?"         { $$ = AST_TN_GENERIC; }
	;

/* <graph-definition> ::= <graph-declaration> <body>
 * <graph-declaration> ::= "graph" <identifier> "(" <identifier-list> ")"
 *                         "->" "(" <identifier-list> ")" */
graph
	: "graph" TK_IDENT "(" id_list ")" "->" "(" id_list ")"
		<def>{ AstDef *d = ARENA_NEW(ps->arena, AstDef);
		  d->is_graph = true;
		  d->name = $2.v.ident; d->name_loc = @2;
		  d->keyword_loc = @1; d->loc = loc_join(@1, @9);
		  d->nparams = $4.len; d->params = FINISH($4, AstParam);
		  d->nresults = $8.len; d->results = FINISH($8, AstParam);
		  $$ = d;
		  /* a streamed parse hands the body over statement by
		   * statement, or stops here */
		  if (!parse_graph_begin(ps, d)) YYABORT; }
	  body
		{ AstDef *d = $10;
		  d->loc = @$;
		  d->body = $11;
		  $$ = d; }
	| "graph" error body
		{ AstDef *d = ARENA_NEW(ps->arena, AstDef);
		  d->is_graph = true;
		  d->name = ps->frag_name ? ps->frag_name : intern_cstr(ps->interner, "?");
		  d->name_loc = @1; d->keyword_loc = @1; d->loc = @$;
		  d->body = $3; d->broken = true;
		  $$ = d; }
	;

/* <identifier-list> ::= <identifier> ("," <identifier>)* */
id_list
	: TK_IDENT
		{ AstParam p = { .name = $1.v.ident, .loc = @1 };
		  $$ = (AVec){ 0 }; PUSH($$, p); }
	| id_list "," TK_IDENT
		{ AstParam p = { .name = $3.v.ident, .loc = @3 };
		  $$ = $1; PUSH($$, p); }
	;

/* <body> ::= "{" <assignment>+ "}" */
body
	: "{" stmts "}"
		{ $$ = parse_body(ps, @$, &$2); }
	| "{" stmts error "}"
		{ yyerrok; $$ = parse_body(ps, @$, &$2); }
	| "{" error "}"
		{ yyerrok; AVec none = { 0 }; $$ = parse_body(ps, @$, &none); }
	;

/* <assignment> ::= <lvalue-expr> "=" <rvalue-expr> ";" */
stmts
	: lhs_tuple "=" expr ";"
		{ AstAssign s = { .lhs = parse_list(ps, AST_TUPLE, &$1, @1),
				  .rhs = $3, .loc = @$ };
		  $$ = (AVec){ 0 };
		  if (!s.lhs || !parse_stmt(ps, &$$, &s)) YYABORT; }
	| expr "=" expr ";"
		{ AstAssign s = { .lhs = $1, .rhs = $3, .loc = @$ };
		  $$ = (AVec){ 0 }; if (!parse_stmt(ps, &$$, &s)) YYABORT; }
	| error ";"
		{ $$ = (AVec){ 0 }; yyerrok; }
	/* an assignment the feed read and handed over (plain_statements.c) */
	| TK_STMT
		{ $$ = (AVec){ 0 }; if (ps->fast_stop) YYABORT; }
	| stmts TK_STMT
		{ $$ = $1; if (ps->fast_stop) YYABORT; }
	| stmts lhs_tuple "=" expr ";"
		{ AstAssign s = { .lhs = parse_list(ps, AST_TUPLE, &$2, @2),
				  .rhs = $4, .loc = loc_join(@2, @5) };
		  $$ = $1;
		  if (!s.lhs || !parse_stmt(ps, &$$, &s)) YYABORT; }
	| stmts expr "=" expr ";"
		{ AstAssign s = { .lhs = $2, .rhs = $4, .loc = loc_join(@2, @5) };
		  $$ = $1; if (!parse_stmt(ps, &$$, &s)) YYABORT; }
	| stmts error ";"
		{ $$ = $1; yyerrok; }
	;

/* <tuple-lvalue-expr> without parentheses: a, b = ... */
lhs_tuple
	: expr "," expr
		{ $$ = (AVec){ 0 }; PUSH($$, $1); PUSH($$, $3); }
	| lhs_tuple "," expr
		{ $$ = $1; PUSH($$, $3); }
	;

/* <rvalue-expr> */
expr
	: postfix
	| "-" expr %prec UNARY  { $$ = parse_unary(ps, AST_OP_MINUS, $2, @$); if (!$$) YYABORT; }
	| "+" expr %prec UNARY  { $$ = parse_unary(ps, AST_OP_PLUS, $2, @$); if (!$$) YYABORT; }
	| "!" expr %prec UNARY  { $$ = parse_unary(ps, AST_OP_NOT, $2, @$); if (!$$) YYABORT; }
	| expr "+" expr   { $$ = parse_binary(ps, AST_OP_PLUS, $1, $3, @$); if (!$$) YYABORT; }
	| expr "-" expr   { $$ = parse_binary(ps, AST_OP_MINUS, $1, $3, @$); if (!$$) YYABORT; }
	| expr "*" expr   { $$ = parse_binary(ps, AST_OP_MUL, $1, $3, @$); if (!$$) YYABORT; }
	| expr "/" expr   { $$ = parse_binary(ps, AST_OP_DIV, $1, $3, @$); if (!$$) YYABORT; }
	| expr "^" expr   { $$ = parse_binary(ps, AST_OP_POW, $1, $3, @$); if (!$$) YYABORT; }
	| expr "<" expr   { $$ = parse_binary(ps, AST_OP_LT, $1, $3, @$); if (!$$) YYABORT; }
	| expr "<=" expr  { $$ = parse_binary(ps, AST_OP_LE, $1, $3, @$); if (!$$) YYABORT; }
	| expr ">" expr   { $$ = parse_binary(ps, AST_OP_GT, $1, $3, @$); if (!$$) YYABORT; }
	| expr ">=" expr  { $$ = parse_binary(ps, AST_OP_GE, $1, $3, @$); if (!$$) YYABORT; }
	| expr "==" expr  { $$ = parse_binary(ps, AST_OP_EQ, $1, $3, @$); if (!$$) YYABORT; }
	| expr "!=" expr  { $$ = parse_binary(ps, AST_OP_NE, $1, $3, @$); if (!$$) YYABORT; }
	| expr "&&" expr  { $$ = parse_binary(ps, AST_OP_AND, $1, $3, @$); if (!$$) YYABORT; }
	| expr "||" expr  { $$ = parse_binary(ps, AST_OP_OR, $1, $3, @$); if (!$$) YYABORT; }
	| expr "in" expr  { $$ = parse_binary(ps, AST_OP_IN, $1, $3, @$); if (!$$) YYABORT; }
	/* <if-else-expr> ::= <rvalue-expr> "if" <rvalue-expr> "else" <rvalue-expr> */
	| expr "if" expr "else" expr
		{ $$ = NODE(AST_IFELSE, @$);
		  $$->u.sel.value = $1; $$->u.sel.cond = $3; $$->u.sel.other = $5;
		  DEPTH($$, $1); DEPTH($$, $3); DEPTH($$, $5); }
	;

/* <subscript-expr> ::= <rvalue-expr> "[" (<rvalue-expr> | [<rvalue-expr>] ":" [<rvalue-expr>]) "]" */
postfix
	: primary
	| postfix "[" index_expr "]"
		{ $$ = $3; $$->loc = @$; $$->u.sub.seq = $1; DEPTH($$, $1); }
	;

index_expr
	: expr
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.index = $1; DEPTH($$, $1); }
	| expr ":" expr
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.is_range = true;
		  $$->u.sub.index = $1; $$->u.sub.end = $3;
		  DEPTH($$, $1); DEPTH($$, $3); }
	| expr ":"
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.is_range = true;
		  $$->u.sub.index = $1; DEPTH($$, $1); }
	| ":" expr
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.is_range = true;
		  $$->u.sub.end = $2; DEPTH($$, $2); }
	| ":"
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.is_range = true; }
	;

primary
	: TK_IDENT
		{ $$ = NODE(AST_IDENT, @$); $$->u.ident = $1.v.ident; }
	| literal
	/* <array-rvalue-expr> ::= "[" [<rvalue-expr> ("," <rvalue-expr>)*] "]" */
	| "[" "]"
		{ $$ = NODE(AST_ARRAY, @$); }
	| "[" expr_list "]"
		{ $$ = parse_list(ps, AST_ARRAY, &$2, @$); if (!$$) YYABORT; }
	/* <comprehension-expr> ::= "[" "for" <loop-iter-list> ["if" <rvalue-expr>] "yield" <rvalue-expr> "]" */
	| "[" "for" iters "yield" expr "]"
		{ $$ = parse_comprehension(ps, @$, &$3, NULL, $5); if (!$$) YYABORT; }
	| "[" "for" iters "if" expr "yield" expr "]"
		{ $$ = parse_comprehension(ps, @$, &$3, $5, $7); if (!$$) YYABORT; }
	/* <paren-expr> ::= "(" <rvalue-expr> ")" */
	| "(" expr ")"
		{ $$ = $2; $$->loc = @$; $$->parens = true; }
	/* <tuple-rvalue-expr> ::= "(" <rvalue-expr> ("," <rvalue-expr>)+ ")" */
	| "(" expr "," expr_list ")"
		{ AVec v = { 0 };
		  PUSH(v, $2);
		  for (size_t i = 0; i < $4.len; i++)
			  PUSH(v, ((AstExpr **)$4.data)[i]);
		  ast_vec_drop(&$4);
		  $$ = parse_list(ps, AST_TUPLE, &v, @$); if (!$$) YYABORT; }
	/* <builtin-expr> ::= <builtin-name> "(" <rvalue-expr> ")" */
	| builtin "(" expr ")"
		{ $$ = NODE(AST_BUILTIN, @$); $$->u.bi.which = $1;
		  $$->u.bi.arg = $3; DEPTH($$, $3); }
	/* <invocation> ::= <identifier> ["<" <type-name> ">"] "(" <argument-list> ")" */
	| TK_IDENT "(" args ")"
		{ $$ = parse_invoke(ps, @$, $1.v.ident, &$3); if (!$$) YYABORT; }
	| TK_IDENT TK_GENERIC_LT type_name ">" "(" args ")"
		{ $$ = parse_invoke(ps, @$, $1.v.ident, &$6); if (!$$) YYABORT;
		  $$->u.inv.has_generic = true; $$->u.inv.generic = $3; }
	;

builtin
	: "shape_of"  { $$ = AST_BI_SHAPE_OF; }
	| "length_of" { $$ = AST_BI_LENGTH_OF; }
	| "range_of"  { $$ = AST_BI_RANGE_OF; }
	| "integer"   { $$ = AST_BI_INTEGER; }
	| "scalar"    { $$ = AST_BI_SCALAR; }
	| "logical"   { $$ = AST_BI_LOGICAL; }
	| "string"    { $$ = AST_BI_STRING; }
	;

/* <literal> ::= <numeric-literal> | <string-literal> | <logical-literal> */
literal
	: TK_INT
		{ $$ = NODE(AST_INT, @$); $$->u.ival = $1.v.i;
		  if ($1.int_min) { $$->op = 1; ps->int_min_pending++; } }
	| TK_REAL
		{ $$ = NODE(AST_REAL, @$); $$->u.rval = $1.v.r; }
	| TK_STRING
		{ $$ = NODE(AST_STRING, @$); $$->u.str.s = $1.v.str.s;
		  $$->u.str.len = $1.v.str.len; }
	| "true"
		{ $$ = NODE(AST_BOOL, @$); $$->u.bval = true; }
	| "false"
		{ $$ = NODE(AST_BOOL, @$); $$->u.bval = false; }
	;

expr_list
	: expr                { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| expr_list "," expr  { $$ = $1; PUSH($$, $3); }
	;

/* <loop-iter-list> ::= <loop-iter> ("," <loop-iter>)* */
iters
	: iter            { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| iters "," iter  { $$ = $1; PUSH($$, $3); }
	;

/* <loop-iter> ::= <identifier> "in" <rvalue-expr> */
iter
	: TK_IDENT "in" expr
		{ $$ = (AstIter){ .name = $1.v.ident, .name_loc = @1,
				  .iterable = $3 }; }
	;

/* <argument-list> ::= <argument> ("," <argument>)* */
args
	: arg           { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| args "," arg  { $$ = $1; PUSH($$, $3); }
	;

/* <argument> ::= <rvalue-expr> | <identifier> "=" <rvalue-expr> */
arg
	: expr
		{ $$ = (AstArg){ .value = $1 }; }
	| TK_IDENT "=" expr
		{ $$ = (AstArg){ .name = $1.v.ident, .name_loc = @1,
				 .value = $3 }; }
	;

%%

/* The lexer's invalid token (reported by the lexer) is bison's. */
#define T_TK_ERROR T_PARSE_YYUNDEF

/* The grammar's token for each lexer token, generated from the one list
 * of tokens: each terminal is named after its token kind, so a token of
 * lexer/tokens.def without its %token above does not compile. Read
 * forwards by parse_yylex, backwards by tok_of_symbol. */
static const int grammar_token[TK_COUNT] = {
#define TOKEN(kind, spelling, desc, reader) [kind] = T_##kind,
#include "lexer/tokens.def"
#undef TOKEN
};

static int parse_yylex(PARSE_YYSTYPE *lval, Loc *lloc, ParseState *ps)
{
	Token t;
	parse_next_token(ps, &t);
	lval->tok = t;
	*lloc = t.loc;
	return grammar_token[t.kind];
}

/* The lexer token of a grammar symbol, TK_COUNT for none: grammar_token
 * read backwards. */
static TokKind tok_of_symbol(yysymbol_kind_t sym)
{
	for (int k = 0; k < TK_COUNT; k++)
		if (k != TK_ERROR && YYTRANSLATE(grammar_token[k]) == sym)
			return (TokKind)k;
	return TK_COUNT;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, ParseState *ps)
{
	yysymbol_kind_t expected[YYNTOKENS];
	int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
	TokKind kinds[YYNTOKENS];
	size_t nk = 0;
	for (int i = 0; i < n; i++) {
		TokKind k = tok_of_symbol(expected[i]);
		if (k != TK_COUNT && k != TK_STMT && k != TK_QUANT_FILE)
			kinds[nk++] = k;
	}
	yysymbol_kind_t la = yypcontext_token(ctx);
	if (la == YYSYMBOL_YYUNDEF || ps->too_deep) {
		/* The lexer has reported this token already, or the input
		 * nests too deeply and was cut short (E0216 said so). */
		ps->syntax_errors = true;
		return 0;
	}
	parse_syntax_error(ps, kinds, nk);
	return 0;
}

static void parse_yyerror(Loc *lloc, ParseState *ps, const char *msg)
{
	/* Bison calls this only when its stack is exhausted: the input
	 * nests more deeply than any real document. */
	(void)msg;
	parse_too_deep(ps, *lloc);
}
