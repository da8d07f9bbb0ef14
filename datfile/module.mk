# datfile/: tensor files, containers (directory, tar, tgz), graph.quant
LIB_SRCS += datfile/codec.c datfile/items.c datfile/container.c datfile/tar.c \
	datfile/quant.c datfile/write.c
