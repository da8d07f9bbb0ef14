# model/: locating a model's graph and running the checking pipeline
LIB_SRCS += model/model.c model/stream.c model/data.c model/quant.c model/libs.c model/load.c
