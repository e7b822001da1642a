/*
 * test_hardening.c - regression tests for what fuzz/ found in the readers.
 *
 * Each input is made by code here from a real object the test compiles,
 * changed in the one field the fuzzer found, so the test documents the
 * bug and no binary is committed. The sanitizer build (ci/test-sanitize)
 * is where the undefined-behaviour ones fail loudly; the assertions here
 * hold the answer the reader must give in any build.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit.h"

#include "leftover/elf.h"
#include "leftover/error.h"
#include "leftover/resolve.h"
#include "leftover/target.h"

static char work[4096];

/* Write `text` to WORK/name. */
static void put(const char *name, const char *text)
{
	unit_put(work, name, text);
}

static int setup(void **state)
{
	const char *base = getenv("LEFTOVER_WORK");
	static int n;

	snprintf(work, sizeof(work), "%s/t%d", base ? base : "/tmp/leftover-unit-hardening", n++);
	sh("rm -rf '%s' && mkdir -p '%s'", work, work);
	return 0;
}

/* Read WORK/name whole; *size set. */
static unsigned char *slurp(const char *name, size_t *size)
{
	char path[8192];
	unsigned char *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", work, name);
	assert_non_null(f = fopen(path, "rb"));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static void spill(const char *name, const unsigned char *buf, size_t size)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", work, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(buf, 1, size, f), size);
	fclose(f);
}

/* The section header of the first section of `type` in a 64-bit object. */
static Elf64_Shdr *find_section(unsigned char *buf, size_t size, uint32_t type)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	size_t i;

	assert_true(size >= sizeof(*eh));
	assert_true(eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size);
	for (i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *s = (Elf64_Shdr *)(buf + eh->e_shoff) + i;

		if (s->sh_type == type)
			return s;
	}
	fail_msg("no section of type %u", type);
	return NULL;
}

/*
 * fuzz_elf: a DT_GNU_HASH bloom_shift of 32 or more made the bloom test
 * shift a 32-bit hash by that much, undefined in C. Whatever the shift,
 * the reader must answer as the real loader does: each variant is also
 * dlopen()ed here and asked with dlsym.
 */
static void test_gnu_hash_bloom_shift_of_32_or_more(void **state)
{
	static const uint32_t shifts[] = { 0, 31, 32, 38, 63, 64, 70, 0xffffffffu };
	unsigned char *buf;
	size_t size, i;
	Elf64_Shdr *gh;

	put("f.c", "int lo_hardening_fn(void) { return 7; }\n");
	sh("cd '%s' && cc -shared -fPIC -Wl,--hash-style=gnu -o f.so f.c", work);
	buf = slurp("f.so", &size);
	gh = find_section(buf, size, SHT_GNU_HASH);
	for (i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		char name[64], path[8192];
		uint32_t *words = (uint32_t *)(buf + gh->sh_offset);
		void *handle;
		bool real;
		lo_elf *e;

		words[3] = shifts[i];
		snprintf(name, sizeof(name), "shift%zu.so", i);
		spill(name, buf, size);
		snprintf(path, sizeof(path), "%s/%s", work, name);
		assert_non_null(handle = dlopen(path, RTLD_NOW | RTLD_LOCAL));
		real = dlsym(handle, "lo_hardening_fn") != NULL;
		assert_int_equal(lo_elf_open(&e, AT_FDCWD, path, path, false), 0);
		if (lo_elf_exports(e, "lo_hardening_fn") != real)
			fail_msg("bloom_shift %u: leftover says %d, dlsym says %d", shifts[i], !real,
				 real);
		assert_false(lo_elf_exports(e, "lo_hardening_absent"));
		lo_elf_free(e);
		dlclose(handle);
	}
	free(buf);
}

/*
 * fuzz_elf: a file with two SHT_DYNSYM sections leaked the first widened
 * copy of a 32-bit object's table (a big-endian one's is copied too). Here
 * a -m32 object's .symtab is made a second SHT_DYNSYM: the reader takes
 * the last one, and the sanitizer build fails on a leak.
 */
static void test_second_dynsym_of_a_32bit_object(void **state)
{
	unsigned char *buf;
	size_t size, i;
	Elf32_Ehdr *eh;
	lo_elf *e;
	char path[8192];
	int n = 0;

	put("f.c", "int lo_hardening_fn(void) { return 7; }\n");
	/*
	 * Compiled with -m32 and linked by ld alone, so that no 32-bit libc or
	 * libgcc (gcc-multilib's) is needed; a cc that makes no i386 code (the
	 * arm64 build's cross compiler) leaves nothing to test.
	 */
	snprintf(path, sizeof(path),
		 "cd '%s' && cc -m32 -fPIC -c -o f.o f.c 2>/dev/null && ld -m elf_i386 -shared -o f.so f.o",
		 work);
	if (system(path) != 0)
		skip();
	buf = slurp("f.so", &size);
	eh = (Elf32_Ehdr *)buf;
	assert_int_equal(eh->e_ident[EI_CLASS], ELFCLASS32);
	assert_true(eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf32_Shdr) <= size);
	for (i = 0; i < eh->e_shnum; i++) {
		Elf32_Shdr *sh32 = (Elf32_Shdr *)(buf + eh->e_shoff) + i;

		if (sh32->sh_type == SHT_SYMTAB)
			sh32->sh_type = SHT_DYNSYM;
		n += sh32->sh_type == SHT_DYNSYM;
	}
	assert_int_equal(n, 2);
	spill("two.so", buf, size);
	snprintf(path, sizeof(path), "%s/two.so", work);
	assert_int_equal(lo_elf_open(&e, AT_FDCWD, path, path, false), 0);
	lo_elf_free(e);
	free(buf);
}

/*
 * fuzz_elf: an empty version requirements section that still counts
 * entries (sh_info) made the reader, which has no bytes of it to point
 * into, form a pointer from NULL before the bounds check (UBSan: applying
 * zero offset to null pointer). Such a file is refused, by name.
 */
static void test_empty_version_requirements(void **state)
{
	unsigned char *buf;
	size_t size;
	Elf64_Shdr *vn;
	lo_elf *e;
	char path[8192];

	put("f.c", "#include <stdio.h>\nint lo_hardening_fn(void) { return puts(\"x\"); }\n");
	sh("cd '%s' && cc -shared -fPIC -o f.so f.c", work);
	buf = slurp("f.so", &size);
	vn = find_section(buf, size, SHT_GNU_verneed);
	assert_true(vn->sh_info >= 1);
	vn->sh_size = 0;
	spill("empty.so", buf, size);
	snprintf(path, sizeof(path), "%s/empty.so", work);
	assert_int_equal(lo_elf_open(&e, AT_FDCWD, path, path, false), LO_EINVALID);
	assert_non_null(strstr(lo_error_last(), "version requirements"));
	free(buf);
}

/* Would dlopen(WORK/cand.so) load from a C program, with `conf` as ld.so.conf? */
static bool loads_with_conf(const char *conf)
{
	lo_resolver_opts opts = { 0 };
	/* libc's directories (of the machine the test runs as: an arm64 build runs
	   under qemu), for the host; libdep.so is found only through ld.so.conf. */
	char lib[256], usrlib[256];
	const char *libc_dirs[2] = { lib, usrlib };
	lo_resolver *r;
	lo_host *h;
	lo_load *l;
	char path[8192], confpath[8192];
	bool ok;

	snprintf(lib, sizeof(lib), "/lib/%s", lo_target_native()->name);
	snprintf(usrlib, sizeof(usrlib), "/usr/lib/%s", lo_target_native()->name);
	snprintf(confpath, sizeof(confpath), "%s/%s", work, conf);
	snprintf(path, sizeof(path), "%s/cand.so", work);
	opts.ldso_cache = "";
	opts.ldso_conf = confpath;
	opts.default_dirs = libc_dirs;
	opts.default_dirs_count = 2;
	assert_int_equal(lo_resolver_new(&r, &opts), 0);
	assert_int_equal(lo_host_new(&h, r, NULL), 0);
	assert_int_equal(lo_load_simulate(&l, r, h, path, 0, NULL, NULL), 0);
	ok = lo_load_ok(l);
	lo_load_free(l);
	lo_host_free(h);
	lo_resolver_free(r);
	return ok;
}

/*
 * fuzz_ldso_conf: an `include` glob that reaches a device (/dev/zero) read
 * it forever, one that reaches /proc/kmsg or a FIFO blocked; a file that
 * includes itself twice doubled the reads at each
 * of 16 levels; a glob that takes in megabytes of files read them all,
 * and /proc/PID/pagemap gigabytes of NULs.
 * Each must end quickly, and the directories listed after them must
 * still count.
 */
static void test_ldso_conf_include_device_and_self(void **state)
{
	char text[8192];

	put("dep.c", "int dep(void) { return 1; }\n");
	put("cand.c", "extern int dep(void); int cand(void) { return dep(); }\n");
	sh("cd '%s' && mkdir -p lib && cc -shared -fPIC -o lib/libdep.so dep.c && "
	   "cc -shared -fPIC -o cand.so cand.c -Llib -ldep", work);
	/* The library must be found only through ld.so.conf, or the test proves nothing. */
	put("empty.conf", "\n");
	alarm(60);
	assert_false(loads_with_conf("empty.conf"));

	snprintf(text, sizeof(text), "include /dev/zero\n%s/lib\n", work);
	put("zero.conf", text);
	assert_true(loads_with_conf("zero.conf"));

	/* A FIFO with no writer: opening it for reading blocks unless O_NONBLOCK. */
	sh("mkfifo '%s/fifo.conf'", work);
	snprintf(text, sizeof(text), "include %s/fifo.conf\n%s/lib\n", work, work);
	put("fifo.conf.d", text);
	assert_true(loads_with_conf("fifo.conf.d"));

	snprintf(text, sizeof(text), "include %s/self.conf\ninclude %s/self.conf\n%s/lib\n", work,
		 work, work);
	put("self.conf", text);
	assert_true(loads_with_conf("self.conf"));

	/* Includes that take in more than the reading's bound in all: no more
	   files are opened, but the including file's own later lines count. */
	sh("cd '%s' && mkdir -p big && for i in 1 2 3; do yes '# a line of a large included file' | "
	   "head -c 700000 > big/$i.conf; done", work);
	snprintf(text, sizeof(text), "include %s/big/*.conf\n%s/lib\n", work, work);
	put("big.conf", text);
	assert_true(loads_with_conf("big.conf"));

	/* A /proc file that reads as gigabytes of NULs: a line's strlen counts none of them. */
	snprintf(text, sizeof(text), "include /proc/self/pagemap\n%s/lib\n", work);
	put("pagemap.conf", text);
	assert_true(loads_with_conf("pagemap.conf"));
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_gnu_hash_bloom_shift_of_32_or_more, setup),
		cmocka_unit_test_setup(test_second_dynsym_of_a_32bit_object, setup),
		cmocka_unit_test_setup(test_empty_version_requirements, setup),
		cmocka_unit_test_setup(test_ldso_conf_include_device_and_self, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
