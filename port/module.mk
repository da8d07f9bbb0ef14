# port/: the portability report: a table per target, and the conditions of its rows
LIB_SRCS += port/port_report.c
