# Task pairs, interrupts and noise (issue 5): the deflate/crc tasks use zlib,
# the aes task OpenSSL libcrypto. Builds without them (static cross builds)
# leave HAVE_ZLIB/HAVE_LIBCRYPTO undefined and those tasks report
# "not available in this build".
EXTRA_DEFS += -DHAVE_ZLIB -DHAVE_LIBCRYPTO
EXTRA_LIBS += -lz -lcrypto
