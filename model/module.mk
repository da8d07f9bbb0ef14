# model/: locating a model's graph and running the checking pipeline
LIB_SRCS += model/stages.c model/stream.c model/data_check.c model/quant_check.c model/declarations.c model/load.c
