# datfile/: tensor files (NNEF .dat with tract's types, NumPy .npy and
# .npz), containers (directory, tar, tgz)
LIB_SRCS += datfile/codec.c datfile/items.c datfile/tract_items.c datfile/npy.c \
	datfile/npz.c datfile/container.c datfile/tar.c \
	datfile/write.c
