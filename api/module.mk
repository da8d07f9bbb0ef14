# api/: the public library interface, nnef.h, over the stages
LIB_SRCS += api/diags.c api/model.c api/graph.c api/tensor.c api/tensor_stream.c api/bundle.c api/run.c api/interp_host.c api/report.c api/api_port.c
