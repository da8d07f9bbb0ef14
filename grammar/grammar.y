/*
 * grammar.y - the NNEF grammar (spec Appendix A.2, compositional; the flat
 * grammar of A.1 is a subset, enforced afterwards by parse.c's extension
 * gating). Pure parser, no conflicts (%expect 0), custom syntax error
 * messages with LAC so that the "expected ..." lists are exact.
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
%define api.prefix {nnef_yy}
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
int nnef_yylex(NNEF_YYSTYPE *lval, Loc *lloc, ParseState *ps);
void nnef_yyerror(Loc *lloc, ParseState *ps, const char *msg);
}

%code {
#include <string.h>

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                     \
	do {                                                            \
		if (N) {                                                \
			(Cur) = loc_join(YYRHSLOC(Rhs, 1), YYRHSLOC(Rhs, N)); \
		} else {                                                \
			(Cur) = loc_end(YYRHSLOC(Rhs, 0));              \
		}                                                       \
	} while (0)

#define NODE(kind, loc) ps_expr(ps, (kind), (loc))
/* A list built during the parse, moved into the arena. */
#define FINISH(v, T) ((T *)avec_finish(ps->arena, &(v), sizeof(T)))
#define PUSH(v, x) avec_push(&(v), &(x), sizeof(x))
#define DEPTH(parent, child)                                            \
	do {                                                            \
		if (!ps_depth(ps, (parent), (child)))                   \
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

%token END 0 "end of input"
%token <tok> IDENT "identifier"
%token <tok> INT "integer literal"
%token <tok> REAL "real literal"
%token <tok> STRING "string literal"
%token TRUE "true"
%token FALSE "false"
%token VERSION "version"
%token EXTENSION "extension"
%token GRAPH "graph"
%token FRAGMENT "fragment"
%token TENSOR "tensor"
%token KW_INTEGER "integer"
%token KW_SCALAR "scalar"
%token KW_LOGICAL "logical"
%token KW_STRING "string"
%token SHAPE_OF "shape_of"
%token LENGTH_OF "length_of"
%token RANGE_OF "range_of"
%token FOR "for"
%token IN "in"
%token YIELD "yield"
%token IF "if"
%token ELSE "else"
%token ARROW "->"
%token LE "<="
%token GE ">="
%token EQ "=="
%token NE "!="
%token AND "&&"
%token OR "||"
%token GLT "generic <"

%right IF ELSE
%left IN
%left AND OR
%left '<' '>' LE GE EQ NE
%left '+' '-'
%left '*' '/'
%precedence UNARY
%right '^'

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
%destructor { avec_drop(&$$); } <vec>

%%

/* <document> ::= <version> <extension>* <fragment-definition>* <graph-definition>
 * Items are accepted in any order here; parse.c checks the order. */
document
	: items
	;

items
	: %empty
	| items item
	;

item
	: VERSION INT ';'
		{ ps_version(ps, @$, @2, true); }
	| VERSION REAL ';'
		{ ps_version(ps, @$, @2, false); }
	| EXTENSION ext_names ';'
		{ ps_extension(ps, @$, &$2); }
	/* A missing ';' (reported as such): keep the statement. */
	| VERSION INT error
		{ ps_version(ps, @$, @2, true); }
	| VERSION REAL error
		{ ps_version(ps, @$, @2, false); }
	| EXTENSION ext_names error
		{ ps_extension(ps, @$, &$2); }
	| fragment
		{ ps_def(ps, @$, $1); }
	| graph
		{ ps_def(ps, @$, $1); }
	| error ';'   { yyerrok; }
	| error '}'   { yyerrok; }
	;

/* <extension> ::= "extension" <identifier>+ ";" */
ext_names
	: IDENT
		{ AstExtension e = { .name = $1.v.ident, .loc = @1 };
		  $$ = (AVec){ 0 }; PUSH($$, e); }
	| ext_names IDENT
		{ AstExtension e = { .name = $2.v.ident, .loc = @2 };
		  $$ = $1; PUSH($$, e); }
	| ext_names ',' IDENT
		{ AstExtension e = { .name = $3.v.ident, .loc = @3,
				     .after_comma = true, .comma_loc = @2 };
		  $$ = $1; PUSH($$, e); }
	;

/* <fragment-definition> ::= <fragment-declaration> (<body> | ";")
 * <fragment-declaration> ::= "fragment" <identifier> [<generic-declaration>]
 *                            "(" <parameter-list> ")" "->" "(" <result-list> ")" */
fragment
	: FRAGMENT IDENT generic_decl '(' params ')' ARROW '(' results ')' frag_tail
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
	/* A broken declaration: skip to its body, which is still parsed. */
	| FRAGMENT error frag_tail
		{ AstDef *d = ARENA_NEW(ps->arena, AstDef);
		  d->name = intern_cstr(ps->interner, "?");
		  d->name_loc = @1; d->keyword_loc = @1; d->loc = @$;
		  d->body = $3; d->broken = true;
		  $$ = d; }
	;

frag_tail
	: ';'   { $$ = NULL; }
	| body  { $$ = $1; }
	;

/* <generic-declaration> ::= "<" "?" ["=" <type-name>] ">" */
generic_decl
	: %empty
		{ $$.present = false; $$.has_default = false;
		  $$.def = AST_TN_SCALAR; $$.loc = @$; }
	| GLT '?' '>'
		{ $$.present = true; $$.has_default = false;
		  $$.def = AST_TN_SCALAR; $$.loc = @$; }
	| '<' '?' '=' type_name '>'
		{ $$.present = true; $$.has_default = true;
		  $$.def = $4; $$.loc = @$; }
	;

/* <parameter-list> ::= <parameter> ("," <parameter>)* */
params
	: param             { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| params ',' param  { $$ = $1; PUSH($$, $3); }
	;

/* <parameter> ::= <identifier> ":" <type-spec> ["=" <literal-expr>] */
param
	: IDENT ':' type_spec
		{ $$ = (AstParam){ .name = $1.v.ident, .loc = @1, .type = $3 }; }
	| IDENT ':' type_spec '=' expr
		{ $$ = (AstParam){ .name = $1.v.ident, .loc = @1, .type = $3,
				   .def = $5 }; }
	;

/* <result-list> ::= <result> ("," <result>)* */
results
	: result             { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| results ',' result { $$ = $1; PUSH($$, $3); }
	;

/* <result> ::= <identifier> ":" <type-spec> */
result
	: IDENT ':' type_spec
		{ $$ = (AstParam){ .name = $1.v.ident, .loc = @1, .type = $3 }; }
	;

/* <type-spec> ::= <type-name> | <tensor-type-spec> | <array-type-spec> | <tuple-type-spec> */
type_spec
	: type_name
		{ $$ = ast_type(ps->arena, AST_TYPE_NAME, @$); $$->name = $1; }
	| TENSOR '<' '>'
		{ $$ = ast_type(ps->arena, AST_TYPE_TENSOR, @$); }
	| TENSOR GLT type_name '>'
		{ $$ = ast_type(ps->arena, AST_TYPE_TENSOR, @$);
		  $$->has_item = true; $$->name = $3; }
	| TENSOR '<' type_name '>'
		{ $$ = ast_type(ps->arena, AST_TYPE_TENSOR, @$);
		  $$->has_item = true; $$->name = $3; }
	| type_spec '[' ']'
		{ $$ = ast_type(ps->arena, AST_TYPE_ARRAY, @$); $$->item = $1;
		  if (!ps_type_depth(ps, $$, $1)) YYABORT; }
	| '(' type_spec ',' type_list ')'
		{ $$ = ast_type(ps->arena, AST_TYPE_TUPLE, @$);
		  AVec v = { 0 };
		  PUSH(v, $2);
		  for (size_t i = 0; i < $4.len; i++)
			  PUSH(v, ((AstType **)$4.data)[i]);
		  avec_drop(&$4);
		  $$->nitems = v.len; $$->items = FINISH(v, AstType *);
		  for (size_t i = 0; i < $$->nitems; i++)
			  if (!ps_type_depth(ps, $$, $$->items[i])) YYABORT; }
	;

type_list
	: type_spec               { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| type_list ',' type_spec { $$ = $1; PUSH($$, $3); }
	;

/* <type-name> ::= "integer" | "scalar" | "logical" | "string" | "?" */
type_name
	: KW_INTEGER { $$ = AST_TN_INTEGER; }
	| KW_SCALAR  { $$ = AST_TN_SCALAR; }
	| KW_LOGICAL { $$ = AST_TN_LOGICAL; }
	| KW_STRING  { $$ = AST_TN_STRING; }
	| '?'        { $$ = AST_TN_GENERIC; }
	;

/* <graph-definition> ::= <graph-declaration> <body>
 * <graph-declaration> ::= "graph" <identifier> "(" <identifier-list> ")"
 *                         "->" "(" <identifier-list> ")" */
graph
	: GRAPH IDENT '(' id_list ')' ARROW '(' id_list ')' body
		{ AstDef *d = ARENA_NEW(ps->arena, AstDef);
		  d->is_graph = true;
		  d->name = $2.v.ident; d->name_loc = @2;
		  d->keyword_loc = @1; d->loc = @$;
		  d->nparams = $4.len; d->params = FINISH($4, AstParam);
		  d->nresults = $8.len; d->results = FINISH($8, AstParam);
		  d->body = $10;
		  $$ = d; }
	| GRAPH error body
		{ AstDef *d = ARENA_NEW(ps->arena, AstDef);
		  d->is_graph = true;
		  d->name = intern_cstr(ps->interner, "?");
		  d->name_loc = @1; d->keyword_loc = @1; d->loc = @$;
		  d->body = $3; d->broken = true;
		  $$ = d; }
	;

/* <identifier-list> ::= <identifier> ("," <identifier>)* */
id_list
	: IDENT
		{ AstParam p = { .name = $1.v.ident, .loc = @1 };
		  $$ = (AVec){ 0 }; PUSH($$, p); }
	| id_list ',' IDENT
		{ AstParam p = { .name = $3.v.ident, .loc = @3 };
		  $$ = $1; PUSH($$, p); }
	;

/* <body> ::= "{" <assignment>+ "}" */
body
	: '{' stmts '}'
		{ $$ = ps_body(ps, @$, &$2); }
	| '{' stmts error '}'
		{ yyerrok; $$ = ps_body(ps, @$, &$2); }
	| '{' error '}'
		{ yyerrok; AVec none = { 0 }; $$ = ps_body(ps, @$, &none); }
	;

/* <assignment> ::= <lvalue-expr> "=" <rvalue-expr> ";" */
stmts
	: lhs_tuple '=' expr ';'
		{ AstAssign s = { .lhs = ps_list(ps, AST_TUPLE, &$1, @1),
				  .rhs = $3, .loc = @$ };
		  $$ = (AVec){ 0 }; if (!s.lhs) YYABORT; PUSH($$, s); }
	| expr '=' expr ';'
		{ AstAssign s = { .lhs = $1, .rhs = $3, .loc = @$ };
		  $$ = (AVec){ 0 }; PUSH($$, s); }
	| error ';'
		{ $$ = (AVec){ 0 }; yyerrok; }
	| stmts lhs_tuple '=' expr ';'
		{ AstAssign s = { .lhs = ps_list(ps, AST_TUPLE, &$2, @2),
				  .rhs = $4, .loc = loc_join(@2, @5) };
		  $$ = $1; if (!s.lhs) YYABORT; PUSH($$, s); }
	| stmts expr '=' expr ';'
		{ AstAssign s = { .lhs = $2, .rhs = $4, .loc = loc_join(@2, @5) };
		  $$ = $1; PUSH($$, s); }
	| stmts error ';'
		{ $$ = $1; yyerrok; }
	;

/* <tuple-lvalue-expr> without parentheses: a, b = ... */
lhs_tuple
	: expr ',' expr
		{ $$ = (AVec){ 0 }; PUSH($$, $1); PUSH($$, $3); }
	| lhs_tuple ',' expr
		{ $$ = $1; PUSH($$, $3); }
	;

/* <rvalue-expr> */
expr
	: postfix
	| '-' expr %prec UNARY  { $$ = ps_unary(ps, AST_OP_MINUS, $2, @$); if (!$$) YYABORT; }
	| '+' expr %prec UNARY  { $$ = ps_unary(ps, AST_OP_PLUS, $2, @$); if (!$$) YYABORT; }
	| '!' expr %prec UNARY  { $$ = ps_unary(ps, AST_OP_NOT, $2, @$); if (!$$) YYABORT; }
	| expr '+' expr   { $$ = ps_binary(ps, AST_OP_PLUS, $1, $3, @$); if (!$$) YYABORT; }
	| expr '-' expr   { $$ = ps_binary(ps, AST_OP_MINUS, $1, $3, @$); if (!$$) YYABORT; }
	| expr '*' expr   { $$ = ps_binary(ps, AST_OP_MUL, $1, $3, @$); if (!$$) YYABORT; }
	| expr '/' expr   { $$ = ps_binary(ps, AST_OP_DIV, $1, $3, @$); if (!$$) YYABORT; }
	| expr '^' expr   { $$ = ps_binary(ps, AST_OP_POW, $1, $3, @$); if (!$$) YYABORT; }
	| expr '<' expr   { $$ = ps_binary(ps, AST_OP_LT, $1, $3, @$); if (!$$) YYABORT; }
	| expr LE expr    { $$ = ps_binary(ps, AST_OP_LE, $1, $3, @$); if (!$$) YYABORT; }
	| expr '>' expr   { $$ = ps_binary(ps, AST_OP_GT, $1, $3, @$); if (!$$) YYABORT; }
	| expr GE expr    { $$ = ps_binary(ps, AST_OP_GE, $1, $3, @$); if (!$$) YYABORT; }
	| expr EQ expr    { $$ = ps_binary(ps, AST_OP_EQ, $1, $3, @$); if (!$$) YYABORT; }
	| expr NE expr    { $$ = ps_binary(ps, AST_OP_NE, $1, $3, @$); if (!$$) YYABORT; }
	| expr AND expr   { $$ = ps_binary(ps, AST_OP_AND, $1, $3, @$); if (!$$) YYABORT; }
	| expr OR expr    { $$ = ps_binary(ps, AST_OP_OR, $1, $3, @$); if (!$$) YYABORT; }
	| expr IN expr    { $$ = ps_binary(ps, AST_OP_IN, $1, $3, @$); if (!$$) YYABORT; }
	/* <if-else-expr> ::= <rvalue-expr> "if" <rvalue-expr> "else" <rvalue-expr> */
	| expr IF expr ELSE expr
		{ $$ = NODE(AST_IFELSE, @$);
		  $$->u.sel.value = $1; $$->u.sel.cond = $3; $$->u.sel.other = $5;
		  DEPTH($$, $1); DEPTH($$, $3); DEPTH($$, $5); }
	;

/* <subscript-expr> ::= <rvalue-expr> "[" (<rvalue-expr> | [<rvalue-expr>] ":" [<rvalue-expr>]) "]" */
postfix
	: primary
	| postfix '[' index_expr ']'
		{ $$ = $3; $$->loc = @$; $$->u.sub.seq = $1; DEPTH($$, $1); }
	;

index_expr
	: expr
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.index = $1; DEPTH($$, $1); }
	| expr ':' expr
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.is_range = true;
		  $$->u.sub.index = $1; $$->u.sub.end = $3;
		  DEPTH($$, $1); DEPTH($$, $3); }
	| expr ':'
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.is_range = true;
		  $$->u.sub.index = $1; DEPTH($$, $1); }
	| ':' expr
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.is_range = true;
		  $$->u.sub.end = $2; DEPTH($$, $2); }
	| ':'
		{ $$ = NODE(AST_SUBSCRIPT, @$); $$->u.sub.is_range = true; }
	;

primary
	: IDENT
		{ $$ = NODE(AST_IDENT, @$); $$->u.ident = $1.v.ident; }
	| literal
	/* <array-rvalue-expr> ::= "[" [<rvalue-expr> ("," <rvalue-expr>)*] "]" */
	| '[' ']'
		{ $$ = NODE(AST_ARRAY, @$); }
	| '[' expr_list ']'
		{ $$ = ps_list(ps, AST_ARRAY, &$2, @$); if (!$$) YYABORT; }
	/* <comprehension-expr> ::= "[" "for" <loop-iter-list> ["if" <rvalue-expr>] "yield" <rvalue-expr> "]" */
	| '[' FOR iters YIELD expr ']'
		{ $$ = ps_comprehension(ps, @$, &$3, NULL, $5); if (!$$) YYABORT; }
	| '[' FOR iters IF expr YIELD expr ']'
		{ $$ = ps_comprehension(ps, @$, &$3, $5, $7); if (!$$) YYABORT; }
	/* <paren-expr> ::= "(" <rvalue-expr> ")" */
	| '(' expr ')'
		{ $$ = $2; $$->loc = @$; $$->parens = true; }
	/* <tuple-rvalue-expr> ::= "(" <rvalue-expr> ("," <rvalue-expr>)+ ")" */
	| '(' expr ',' expr_list ')'
		{ AVec v = { 0 };
		  PUSH(v, $2);
		  for (size_t i = 0; i < $4.len; i++)
			  PUSH(v, ((AstExpr **)$4.data)[i]);
		  avec_drop(&$4);
		  $$ = ps_list(ps, AST_TUPLE, &v, @$); if (!$$) YYABORT; }
	/* <builtin-expr> ::= <builtin-name> "(" <rvalue-expr> ")" */
	| builtin '(' expr ')'
		{ $$ = NODE(AST_BUILTIN, @$); $$->u.bi.which = $1;
		  $$->u.bi.arg = $3; DEPTH($$, $3); }
	/* <invocation> ::= <identifier> ["<" <type-name> ">"] "(" <argument-list> ")" */
	| IDENT '(' args ')'
		{ $$ = ps_invoke(ps, @$, $1.v.ident, &$3); if (!$$) YYABORT; }
	| IDENT GLT type_name '>' '(' args ')'
		{ $$ = ps_invoke(ps, @$, $1.v.ident, &$6); if (!$$) YYABORT;
		  $$->u.inv.has_generic = true; $$->u.inv.generic = $3; }
	;

builtin
	: SHAPE_OF   { $$ = AST_BI_SHAPE_OF; }
	| LENGTH_OF  { $$ = AST_BI_LENGTH_OF; }
	| RANGE_OF   { $$ = AST_BI_RANGE_OF; }
	| KW_INTEGER { $$ = AST_BI_INTEGER; }
	| KW_SCALAR  { $$ = AST_BI_SCALAR; }
	| KW_LOGICAL { $$ = AST_BI_LOGICAL; }
	| KW_STRING  { $$ = AST_BI_STRING; }
	;

/* <literal> ::= <numeric-literal> | <string-literal> | <logical-literal> */
literal
	: INT
		{ $$ = NODE(AST_INT, @$); $$->u.ival = $1.v.i;
		  if ($1.int_min) { $$->op = 1; ps->int_min_pending++; } }
	| REAL
		{ $$ = NODE(AST_REAL, @$); $$->u.rval = $1.v.r; }
	| STRING
		{ $$ = NODE(AST_STRING, @$); $$->u.str.s = $1.v.str.s;
		  $$->u.str.len = $1.v.str.len; }
	| TRUE
		{ $$ = NODE(AST_BOOL, @$); $$->u.bval = true; }
	| FALSE
		{ $$ = NODE(AST_BOOL, @$); $$->u.bval = false; }
	;

expr_list
	: expr                { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| expr_list ',' expr  { $$ = $1; PUSH($$, $3); }
	;

/* <loop-iter-list> ::= <loop-iter> ("," <loop-iter>)* */
iters
	: iter            { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| iters ',' iter  { $$ = $1; PUSH($$, $3); }
	;

/* <loop-iter> ::= <identifier> "in" <rvalue-expr> */
iter
	: IDENT IN expr
		{ $$ = (AstIter){ .name = $1.v.ident, .name_loc = @1,
				  .iterable = $3 }; }
	;

/* <argument-list> ::= <argument> ("," <argument>)* */
args
	: arg           { $$ = (AVec){ 0 }; PUSH($$, $1); }
	| args ',' arg  { $$ = $1; PUSH($$, $3); }
	;

/* <argument> ::= <rvalue-expr> | <identifier> "=" <rvalue-expr> */
arg
	: expr
		{ $$ = (AstArg){ .value = $1 }; }
	| IDENT '=' expr
		{ $$ = (AstArg){ .name = $1.v.ident, .name_loc = @1,
				 .value = $3 }; }
	;

%%

/* The bison token for each lexer token. */
static int token_for(TokKind k)
{
	switch (k) {
	case TK_EOF: return T_END;
	case TK_ERROR: return T_NNEF_YYUNDEF;
	case TK_IDENT: return T_IDENT;
	case TK_INT: return T_INT;
	case TK_REAL: return T_REAL;
	case TK_STRING: return T_STRING;
	case TK_TRUE: return T_TRUE;
	case TK_FALSE: return T_FALSE;
	case TK_KW_VERSION: return T_VERSION;
	case TK_KW_EXTENSION: return T_EXTENSION;
	case TK_KW_GRAPH: return T_GRAPH;
	case TK_KW_FRAGMENT: return T_FRAGMENT;
	case TK_KW_TENSOR: return T_TENSOR;
	case TK_KW_INTEGER: return T_KW_INTEGER;
	case TK_KW_SCALAR: return T_KW_SCALAR;
	case TK_KW_LOGICAL: return T_KW_LOGICAL;
	case TK_KW_STRING: return T_KW_STRING;
	case TK_KW_SHAPE_OF: return T_SHAPE_OF;
	case TK_KW_LENGTH_OF: return T_LENGTH_OF;
	case TK_KW_RANGE_OF: return T_RANGE_OF;
	case TK_KW_FOR: return T_FOR;
	case TK_KW_IN: return T_IN;
	case TK_KW_YIELD: return T_YIELD;
	case TK_KW_IF: return T_IF;
	case TK_KW_ELSE: return T_ELSE;
	case TK_PLUS: return '+';
	case TK_MINUS: return '-';
	case TK_STAR: return '*';
	case TK_SLASH: return '/';
	case TK_CARET: return '^';
	case TK_LT: return '<';
	case TK_LE: return T_LE;
	case TK_GT: return '>';
	case TK_GE: return T_GE;
	case TK_EQ: return T_EQ;
	case TK_NE: return T_NE;
	case TK_AND: return T_AND;
	case TK_OR: return T_OR;
	case TK_NOT: return '!';
	case TK_GENERIC_LT: return T_GLT;
	case TK_LPAREN: return '(';
	case TK_RPAREN: return ')';
	case TK_LBRACKET: return '[';
	case TK_RBRACKET: return ']';
	case TK_LBRACE: return '{';
	case TK_RBRACE: return '}';
	case TK_COLON: return ':';
	case TK_ASSIGN: return '=';
	case TK_COMMA: return ',';
	case TK_SEMI: return ';';
	case TK_ARROW: return T_ARROW;
	case TK_QUESTION: return '?';
	case TK_COUNT: break;
	}
	return T_NNEF_YYUNDEF;
}

int nnef_yylex(NNEF_YYSTYPE *lval, Loc *lloc, ParseState *ps)
{
	Token t;
	ps_next_token(ps, &t);
	lval->tok = t;
	*lloc = t.loc;
	return token_for(t.kind);
}

/* The lexer token of a grammar symbol, TK_COUNT for none. */
static TokKind tok_of_symbol(yysymbol_kind_t sym)
{
	for (int k = 0; k < TK_COUNT; k++)
		if (k != TK_ERROR && YYTRANSLATE(token_for((TokKind)k)) == sym)
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
		if (k != TK_COUNT)
			kinds[nk++] = k;
	}
	yysymbol_kind_t la = yypcontext_token(ctx);
	if (la == YYSYMBOL_YYUNDEF || ps->too_deep) {
		/* The lexer has reported this token already, or the input
		 * nests too deeply and was cut short (E0216 said so). */
		ps->syntax_errors = true;
		return 0;
	}
	ps_syntax_error(ps, kinds, nk);
	return 0;
}

void nnef_yyerror(Loc *lloc, ParseState *ps, const char *msg)
{
	/* Bison calls this only when its stack is exhausted: the input
	 * nests more deeply than any real document. */
	(void)msg;
	ps_too_deep(ps, *lloc);
}
