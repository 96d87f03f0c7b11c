/* sgpu's printf runtime: `vprintf`, which CUDA compilers call for `printf` in device code,
 * appending one record to the printf buffer the launch reserves (docs/hw.md, "Device
 * printf"). The host prints the records after the kernel, in buffer order, formatting them
 * as C's printf does (sim/src/printf.rs). Ordinary integer code: the hardware needs no
 * instruction for it.
 *
 * This file is the source; `cargo xtask codegen` compiles it with Debian's clang-16 into
 * printf.ptx beside it (committed, checked for drift), which the encoder assembles with a
 * module that declares `vprintf`.
 *
 * The caller packs the arguments as C's default promotions leave them, each at a multiple of
 * its size (clang's and NVVM's layout): int and smaller as 4 bytes; long, long long,
 * pointers and double (float promoted) as 8. Nothing says how many there are, so vprintf
 * reads the format, as CUDA's does, to size them, by the rules the host formats them by
 * (sim/src/printf/spec.rs): a test runs both on the same formats. */

typedef unsigned long long u64;
typedef unsigned int u32;

/* The buffer's header, at the address the host writes into __sgpu_printf_buffer. */
#define HEADER_BYTES 16u
/* A record's own bytes before its arguments. */
#define RECORD_BYTES 16u
/* CUDA's limit: arguments past the 32nd are not copied, and their conversions are printed as
 * written. */
#define MAX_ARGS 32u
/* What vprintf returns for a NULL format, and for a record the buffer had no room for (or
 * no buffer): CUDA's "format string is NULL" and "internal error". Otherwise it returns the
 * number of arguments, as CUDA's does. */
#define NO_FORMAT -1
#define DROPPED -2

struct header {
  u64 cursor;   /* bytes of records claimed, past `capacity` once records are dropped */
  u32 capacity; /* bytes of the record area, which follows the header */
  u32 dropped;  /* records that did not fit */
};

struct record {
  u32 size;   /* bytes of the record: RECORD_BYTES and the arguments, padded to 8 */
  u32 args;   /* bytes of the arguments */
  u64 format; /* the format string's generic address */
};

/* The buffer, or 0 when the launch reserved none: the host writes its address here before
 * the launch (docs/hw.md). */
__attribute__((device)) struct header *__sgpu_printf_buffer;

#define HELPER static __attribute__((device, always_inline)) inline

HELPER bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Skips a width or precision: `*` (an int argument: how many such) or decimal digits. */
HELPER const char *skip_count(const char *p, u32 *stars) {
  if (*p == '*') {
    *stars += 1;
    return p + 1;
  }
  while (is_digit(*p))
    p++;
  return p;
}

/* The bytes of a conversion's argument: 4 or 8, or 0 for `%%`, an unknown conversion and
 * the format's end, which take none. */
HELPER u32 conversion_bytes(char c, bool wide) {
  switch (c) {
  case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
    return wide ? 8 : 4;
  case 'c':
    return 4;
  case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
  case 's': case 'p':
    return 8;
  default:
    return 0;
  }
}

/* Takes an argument of `size` bytes at a multiple of its size, unless MAX_ARGS are taken. */
HELPER void take(u32 *bytes, u32 *count, u32 size) {
  if (*count == MAX_ARGS)
    return;
  *bytes = ((*bytes + size - 1) & ~(size - 1)) + size;
  *count += 1;
}

/* The bytes of the arguments `p`'s conversions take, and (in `count`) how many: each
 * `%[flags][width][.precision][length]conversion`. */
HELPER u32 argument_bytes(const char *p, u32 *count) {
  u32 bytes = 0;
  *count = 0;
  while (*p) {
    if (*p++ != '%')
      continue;
    while (*p == '-' || *p == '+' || *p == ' ' || *p == '#' || *p == '0')
      p++;
    u32 stars = 0;
    p = skip_count(p, &stars);
    if (*p == '.')
      p = skip_count(p + 1, &stars);
    bool wide = false;
    if (*p == 'h') {
      p += p[1] == 'h' ? 2 : 1;
    } else if (*p == 'l') {
      p += p[1] == 'l' ? 2 : 1;
      wide = true;
    } else if (*p == 'j' || *p == 'z' || *p == 't' || *p == 'L') {
      p++;
      wide = true;
    }
    u32 size = conversion_bytes(*p, wide);
    if (*p)
      p++;
    if (size == 0)
      continue;
    for (; stars; stars--)
      take(&bytes, count, 4);
    take(&bytes, count, size);
  }
  return bytes;
}

extern "C" __attribute__((device, noinline)) int vprintf(const char *format, const char *args) {
  if (!format)
    return NO_FORMAT;
  u32 count;
  u32 bytes = argument_bytes(format, &count);
  struct header *h = __sgpu_printf_buffer;
  if (!h)
    return DROPPED;
  u32 size = RECORD_BYTES + ((bytes + 7) & ~7u);
  u64 at = __atomic_fetch_add(&h->cursor, (u64)size, __ATOMIC_RELAXED);
  if (at + size > h->capacity) {
    __atomic_fetch_add(&h->dropped, 1u, __ATOMIC_RELAXED);
    return DROPPED;
  }
  struct record *r = (struct record *)((char *)h + HEADER_BYTES + at);
  /* Every argument is 4 or 8 bytes at a multiple of its size: whole words. */
  u32 *to = (u32 *)(r + 1);
  const u32 *from = (const u32 *)args;
  for (u32 i = 0; i < bytes / 4; i++)
    to[i] = from[i];
  r->format = (u64)format;
  r->args = bytes;
  /* The size last: a record whose size is still 0 was claimed but not written (its thread
   * trapped first). */
  r->size = size;
  return (int)count;
}
