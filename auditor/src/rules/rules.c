/*
 * rules.c - the rules model: entries interpreted into hosts, rules and
 * settings, and the scan's questions answered from them.
 *
 * Loading has two steps: every layer's entries are collected in order
 * (rules_read.c), then interpreted into the model, so that "a later layer
 * overrides an earlier one" is simply "a later entry wins".
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/git.h"
#include "leftover/os.h"
#include "rules/rules_int.h"

/* --- interpreting entries --- */

/* Split "section.sub.key" (sub may hold dots) into its parts; sub is "" when absent. */
static void split_name(const char *name, lo_buf *section, lo_buf *sub, lo_buf *key)
{
	const char *first = strchr(name, '.'), *last = strrchr(name, '.');

	lo_buf_clear(section);
	lo_buf_clear(sub);
	lo_buf_clear(key);
	if (!first) {
		lo_buf_puts(key, name);
		return;
	}
	lo_buf_add(section, name, (size_t)(first - name));
	if (last > first)
		lo_buf_add(sub, first + 1, (size_t)(last - first - 1));
	lo_buf_puts(key, last + 1);
}

static host *host_get(lo_rules *r, const char *name, const entry *e)
{
	size_t i;
	host *h;

	for (i = 0; i < r->host_count; i++)
		if (!strcmp(r->hosts[i].name, name))
			return &r->hosts[i];
	lo_array_grow(&r->hosts, &r->host_cap, r->host_count + 1, sizeof(*r->hosts));
	h = &r->hosts[r->host_count++];
	memset(h, 0, sizeof(*h));
	h->name = lo_xstrdup(name);
	h->first = e;
	return h;
}

static rule *rule_get(lo_rules *r, const char *name, const entry *e)
{
	size_t i;
	rule *ru;

	for (i = 0; i < r->rule_count; i++)
		if (!strcmp(r->rules[i].pub.name, name))
			return &r->rules[i];
	lo_array_grow(&r->rules, &r->rule_cap, r->rule_count + 1, sizeof(*r->rules));
	ru = &r->rules[r->rule_count++];
	memset(ru, 0, sizeof(*ru));
	ru->pub.name = lo_xstrdup(name);
	ru->on = LO_RULES_ON_STALE | LO_RULES_ON_BROKEN | LO_RULES_ON_ORPHAN;
	ru->first = e;
	return ru;
}

static bool is_executable_file(const char *path)
{
	struct stat st;

	lo_deps_note_path(path); /* one put there later is found then: deps.h */
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A bare program name looked up on PATH, owned, or NULL. */
static char *path_lookup(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	lo_buf b = LO_BUF_INIT;

	for (p = path ? path : "/usr/bin:/bin"; *p; p = colon + 1) {
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		lo_buf_clear(&b);
		if (colon > p)
			lo_buf_add(&b, p, (size_t)(colon - p));
		else
			lo_buf_putc(&b, '.');
		lo_buf_printf(&b, "/%s", name);
		if (is_executable_file(lo_buf_cstr(&b)))
			return lo_buf_detach(&b);
		if (!*colon)
			break;
	}
	lo_buf_dispose(&b);
	return NULL;
}

/* The version-sorted newest of the executables matching `pattern`, owned, or NULL. */
static char *newest_match(const char *pattern)
{
	glob_t g;
	char *best = NULL;
	size_t i;

	if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
		return NULL;
	for (i = 0; i < g.gl_pathc; i++)
		if (is_executable_file(g.gl_pathv[i]) &&
		    (!best || lo_strverscmp(g.gl_pathv[i], best) > 0))
			best = g.gl_pathv[i];
	best = best ? lo_xstrdup(best) : NULL;
	globfree(&g);
	return best;
}

/*
 * A program named by the rule's author: a path (relative ones next to the
 * rule file) or a name on PATH, owned; NULL when it is not there. A path
 * with wildcards takes the newest version there is (of Debian's
 * postgresql/N/bin/postgres, 16 over 15).
 */
static char *program_find(lo_rules *r, const entry *e, const char *v)
{
	char *prog, *hit;

	if (!strchr(v, '/'))
		return path_lookup(v);
	prog = lo_rules_include_resolve(r->files[e->file].path, v);
	if (strpbrk(prog, "*?[")) {
		hit = newest_match(prog);
		free(prog);
		return hit;
	}
	if (is_executable_file(prog))
		return prog;
	free(prog);
	return NULL;
}

/* The value of VAR in the tree's CMakeCache.txt, owned; NULL when unset or empty. */
static char *cmake_var(const lo_rules *r, const char *var)
{
	const char *v = r->cmake_vars ? lo_map_get(r->cmake_vars, var, NULL) : NULL;

	return v && *v ? lo_xstrdup(v) : NULL;
}

/*
 * Resolve a host program: `${cmake:A|B}` (the first of the CMakeCache
 * variables that is set; none set leaves the host without a program, or
 * takes the first default of `${cmake:A|B:-perl|/opt/perl}` that is
 * there), a path
 * (relative ones next to the rule file), or a name on PATH. A default is
 * the host the tree would most likely meet, so one that is missing leaves
 * the host without a program; a plain value is what the rule's author
 * wrote, so one that is missing is an error.
 */
static int host_set_program(lo_rules *r, host *h, const entry *e)
{
	const char *v = e->value;
	char *prog = NULL;
	size_t n = strlen(v);

	free(h->program);
	h->program = NULL;
	h->program_at = e;
	h->program_tree = r->files[e->file].tree;
	if (!strncmp(v, "${cmake:", 8)) {
		const char *p = v + 8, *bar, *dflt = strstr(v, ":-");
		size_t end = dflt ? (size_t)(dflt - v) : n - 1;

		if (n < 10 || v[n - 1] != '}' || end <= 8 || (dflt && dflt + 2 == v + n - 1))
			return lo_rules_entry_error(r, e, "'%s': ${cmake:VAR} or ${cmake:VAR:-DEFAULT} must be "
					   "the whole value", v);
		if (!r->resolve_cmake)
			return 0;
		while (!prog && p < v + end) {
			char *var;

			if (!(bar = memchr(p, '|', (size_t)(v + end - p))))
				bar = v + end;
			var = lo_xstrndup(p, (size_t)(bar - p));
			prog = cmake_var(r, var);
			free(var);
			h->program_tree |= prog != NULL;
			p = bar + 1;
		}
		/* the defaults, `|`-separated as the variables are: the first that is there */
		for (p = dflt ? dflt + 2 : NULL; !prog && p && p < v + n - 1; p = bar + 1) {
			char *name;

			if (!(bar = memchr(p, '|', (size_t)(v + n - 1 - p))))
				bar = v + n - 1;
			name = lo_xstrndup(p, (size_t)(bar - p));
			prog = *name ? program_find(r, e, name) : NULL;
			free(name);
		}
		/*
		 * A cached path that is gone (a deleted venv) is the tree's problem,
		 * not the rule's: the scan reports it when it needs the host, and
		 * --python or --host still replace it.
		 */
		h->program = prog;
		return 0;
	} else if (!*v) {
		return lo_rules_entry_error(r, e, "empty program");
	} else if (!(prog = program_find(r, e, v))) {
		if (!strchr(v, '/'))
			return lo_rules_entry_error(r, e, "host program '%s' is not on PATH", v);
		return lo_rules_entry_error(r, e, "host program '%s' does not exist or is not executable", v);
	}
	h->program = prog;
	return 0;
}

/*
 * A library the program loads before the files: an absolute path, or one
 * under ${program_dir}, which only the scan's hosts know (the program that
 * really runs may be behind a shim).
 */
static int host_add_preload(lo_rules *r, host *h, const entry *e)
{
	const char *v = e->value;

	if (!lo_os_path_is_absolute(v) && strncmp(v, "${program_dir}/", 15))
		return lo_rules_entry_error(r, e, "'%s': a preload is an absolute path or "
					   "${program_dir}/PATH", v);
	if (strstr(v + 1, "${"))
		return lo_rules_entry_error(r, e, "'%s': only ${program_dir} at its start is "
					   "expanded", v);
	lo_array_grow(&h->preload.globs, &h->preload.cap, h->preload.count + 1, sizeof(char *));
	h->preload.globs[h->preload.count++] = lo_xstrdup(v);
	return 0;
}

/* A program shipped with the objects, at a relative path from each one's directory. */
static int host_add_beside(lo_rules *r, host *h, const entry *e)
{
	if (!*e->value || lo_os_path_is_absolute(e->value) || strstr(e->value, "${"))
		return lo_rules_entry_error(r, e, "'%s': beside is a path relative to the "
					   "object's directory", e->value);
	lo_array_grow(&h->beside.globs, &h->beside.cap, h->beside.count + 1, sizeof(char *));
	h->beside.globs[h->beside.count++] = lo_xstrdup(e->value);
	return 0;
}

/* A comma- or space-separated list of stale|broken|orphan. */
static int parse_on(lo_rules *r, const entry *e, unsigned *out)
{
	const char *p = e->value;
	unsigned on = 0;

	while (*p) {
		size_t len;

		p += strspn(p, " ,\t");
		len = strcspn(p, " ,\t");
		if (!len)
			break;
		if (len == 5 && !strncmp(p, "stale", 5))
			on |= LO_RULES_ON_STALE;
		else if (len == 6 && !strncmp(p, "broken", 6))
			on |= LO_RULES_ON_BROKEN;
		else if (len == 6 && !strncmp(p, "orphan", 6))
			on |= LO_RULES_ON_ORPHAN;
		else
			return lo_rules_entry_error(r, e, "'%.*s' is not stale, broken or orphan", (int)len, p);
		p += len;
	}
	if (!on)
		return lo_rules_entry_error(r, e, "empty: say stale, broken or orphan");
	*out = on;
	return 0;
}

static int parse_action(lo_rules *r, const entry *e, lo_rules_action *out)
{
	static const struct { const char *name; lo_rules_action action; } actions[] = {
		{ "report", LO_RULES_ACTION_REPORT },
		{ "keep", LO_RULES_ACTION_KEEP },
		{ "quarantine", LO_RULES_ACTION_QUARANTINE },
		{ "delete", LO_RULES_ACTION_DELETE },
	};
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(e->value, actions[i].name)) {
			*out = actions[i].action;
			return 0;
		}
	return lo_rules_entry_error(r, e, "'%s' is not quarantine, delete, report or keep", e->value);
}

static int parse_fail(lo_rules *r, const entry *e)
{
	if (!strcmp(e->value, "stale"))
		r->fail = LO_RULES_FAIL_STALE;
	else if (!strcmp(e->value, "broken"))
		r->fail = LO_RULES_FAIL_BROKEN;
	else if (!strcmp(e->value, "never"))
		r->fail = LO_RULES_FAIL_NEVER;
	else
		return lo_rules_entry_error(r, e, "'%s' is not stale, broken or never", e->value);
	return 0;
}

static int interpret_entry(lo_rules *r, const entry *e, const char *section, const char *sub,
			   const char *key)
{
	if (!strcmp(section, "include") && !*sub && !strcmp(key, "path"))
		return 0; /* libgit2 has read it already */
	if (!strcmp(section, "candidates") && !*sub) {
		if (!strcmp(key, "include"))
			return lo_pattern_set_add(r, &r->candidates, e, e->value, true, false);
		if (!strcmp(key, "exclude"))
			return lo_pattern_set_add(r, &r->candidates, e, e->value, false, true);
	} else if (!strcmp(section, "host") && *sub) {
		host *h = host_get(r, sub, e);

		if (!strcmp(key, "match"))
			return lo_pattern_set_add(r, &h->match, e, e->value, true, false);
		if (!strcmp(key, "needs"))
			return lo_glob_list_add(r, &h->needs, e);
		if (!strcmp(key, "program"))
			return host_set_program(r, h, e);
		if (!strcmp(key, "provides"))
			return lo_glob_list_add(r, &h->provides, e);
		if (!strcmp(key, "exports"))
			return lo_glob_list_add(r, &h->exports, e);
		if (!strcmp(key, "needs-library"))
			return lo_glob_list_add(r, &h->needs_library, e);
		if (!strcmp(key, "preload"))
			return host_add_preload(r, h, e);
		if (!strcmp(key, "beside"))
			return host_add_beside(r, h, e);
	} else if (!strcmp(section, "symbols") && !*sub) {
		if (!strcmp(key, "ignore"))
			return lo_glob_list_add(r, &r->ignore, e);
	} else if (!strcmp(section, "rule") && *sub) {
		rule *ru = rule_get(r, sub, e);

		if (!strcmp(key, "match"))
			return lo_pattern_set_add(r, &ru->match, e, e->value, true, false);
		if (!strcmp(key, "action"))
			return parse_action(r, e, &ru->pub.action);
		if (!strcmp(key, "on"))
			return parse_on(r, e, &ru->on);
		if (!strcmp(key, "reason")) {
			free((char *)ru->pub.reason);
			ru->pub.reason = lo_xstrdup(e->value);
			return 0;
		}
	} else if (!strcmp(section, "fail") && !*sub) {
		if (!strcmp(key, "on"))
			return parse_fail(r, e);
	} else if (!strcmp(section, "trust") && !*sub) {
		/* a tree that could vouch for itself would need no vouching */
		if (!strcmp(key, "tree") && r->files[e->file].tree)
			return lo_rules_entry_error(r, e, "only the user's own rule files may vouch "
						    "for a tree, not the tree's");
		if (!strcmp(key, "tree") && !lo_os_path_is_absolute(e->value) && strcmp(e->value, "*"))
			return lo_rules_entry_error(r, e, "'%s': an absolute path, or *", e->value);
		if (!strcmp(key, "tree")) {
			lo_array_grow(&r->trusted.globs, &r->trusted.cap, r->trusted.count + 1,
				      sizeof(char *));
			r->trusted.globs[r->trusted.count++] = lo_xstrdup(e->value);
			return 0;
		}
	}
	if ((!strcmp(section, "host") || !strcmp(section, "rule")) && !*sub)
		return lo_rules_entry_error(r, e, "unknown key: [%s] needs a name, as [%s \"NAME\"]", section,
				   section);
	return lo_rules_entry_error(r, e, "unknown key");
}

/* Single-valued keys: the last one wins, and show-origin leaves the others out. */
static bool is_single_valued(const char *key, const char *section)
{
	return !strcmp(key, "program") || !strcmp(key, "action") || !strcmp(key, "reason") ||
	       (!strcmp(key, "on") && (!strcmp(section, "rule") || !strcmp(section, "fail")));
}

static int interpret(lo_rules *r)
{
	lo_buf section = LO_BUF_INIT, sub = LO_BUF_INIT, key = LO_BUF_INIT;
	size_t i, j;
	int err = 0;

	for (i = 0; !err && i < r->entry_count; i++) {
		entry *e = &r->entries[i];

		split_name(e->name, &section, &sub, &key);
		err = interpret_entry(r, e, lo_buf_cstr(&section), lo_buf_cstr(&sub), lo_buf_cstr(&key));
		if (!err && is_single_valued(lo_buf_cstr(&key), lo_buf_cstr(&section)))
			for (j = 0; j < i; j++)
				if (!strcmp(r->entries[j].name, e->name))
					r->entries[j].overridden = true;
	}
	for (i = 0; !err && i < r->host_count; i++) {
		host *h = &r->hosts[i];

		if (!h->match.count && !h->needs.count && !h->exports.count && !h->needs_library.count)
			err = lo_rules_entry_error(r, h->first, "host '%s' has neither match nor needs, "
					  "exports or needs-library: which files does it load?", h->name);
		else if (!h->program_at && !h->provides.count)
			err = lo_rules_entry_error(r, h->first, "host '%s' has neither program nor provides",
					  h->name);
		else
			err = lo_pattern_set_compile(&h->match);
	}
	for (i = 0; !err && i < r->rule_count; i++) {
		if (!r->rules[i].match.count)
			err = lo_rules_entry_error(r, r->rules[i].first, "rule '%s' has no match",
					  r->rules[i].pub.name);
		else
			err = lo_pattern_set_compile(&r->rules[i].match);
	}
	if (!err)
		err = lo_pattern_set_compile(&r->candidates);
	lo_buf_dispose(&section);
	lo_buf_dispose(&sub);
	lo_buf_dispose(&key);
	return err;
}

/* --- loading --- */

static lo_rules *rules_new(void)
{
	lo_rules *r;

	lo_libgit2_init();
	r = lo_xcalloc(1, sizeof(*r));
	r->fail = LO_RULES_FAIL_STALE;
	return r;
}

static int finish(lo_rules **out, lo_rules *r, int err)
{
	if (!err)
		err = interpret(r);
	if (err < 0) {
		lo_rules_free(r);
		return err;
	}
	*out = r;
	return 0;
}

static int collect_given(lo_rules *r, const char *const *files, size_t count)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < count; i++)
		err = lo_rules_collect_file(r, files[i], false);
	return err;
}

int lo_rules_load(lo_rules **out, const char *const *files, size_t count)
{
	lo_rules *r;
	int err;

	*out = NULL;
	r = rules_new();
	err = lo_rules_collect_defaults(r);
	if (!err)
		err = lo_rules_collect_user(r);
	if (!err)
		err = collect_given(r, files, count);
	return finish(out, r, err);
}

int lo_rules_load_tree(lo_rules **out, const char *build_dir, const char *const *files,
		       size_t count)
{
	lo_buf path = LO_BUF_INIT;
	char *src = NULL, *tree;
	lo_rules *r;
	int err;

	*out = NULL;
	r = rules_new();
	r->resolve_cmake = true;
	r->dir = realpath(build_dir, NULL);
	r->cmake_cache = lo_rules_cmake_cache_find(build_dir);
	if (r->cmake_cache) {
		tree = lo_xstrndup(r->cmake_cache, strlen(r->cmake_cache) - strlen("/CMakeCache.txt"));
		r->cmake_vars = lo_buildsys_cache_read(r->cmake_cache);
		src = cmake_var(r, "CMAKE_HOME_DIRECTORY");
	} else {
		tree = lo_xstrdup(build_dir);
	}
	err = lo_rules_collect_defaults(r);
	if (!err)
		err = lo_rules_collect_user(r);
	r->collecting_tree = true;
	if (!err && src) {
		struct stat st;

		lo_buf_printf(&path, "%s/.leftover", src);
		/*
		 * A directory there is no rule file: the build tree's own
		 * .leftover/ of an in-source build (read just below), or where
		 * leftover 0.1 kept its state and quarantine.
		 */
		if (stat(lo_buf_cstr(&path), &st) < 0 || !S_ISDIR(st.st_mode))
			err = lo_rules_collect_file(r, lo_buf_cstr(&path), true);
	}
	if (!err) {
		lo_buf_clear(&path);
		lo_buf_printf(&path, "%s/.leftover/rules", tree);
		err = lo_rules_collect_file(r, lo_buf_cstr(&path), true);
	}
	/* A scan of a directory below the tree's top reads that directory's rules after. */
	if (!err && r->cmake_cache) {
		char *real = realpath(build_dir, NULL);

		if (real && strcmp(real, tree)) {
			lo_buf_clear(&path);
			lo_buf_printf(&path, "%s/.leftover/rules", real);
			err = lo_rules_collect_file(r, lo_buf_cstr(&path), true);
		}
		free(real);
	}
	r->collecting_tree = false;
	if (!err)
		err = collect_given(r, files, count);
	lo_buf_dispose(&path);
	free(src);
	free(tree);
	return finish(out, r, err);
}

int lo_rules_check(const char *file)
{
	lo_rules *r = rules_new(), *done = NULL;
	int err = lo_rules_collect_file(r, file, false);

	err = finish(&done, r, err);
	lo_rules_free(done);
	return err;
}

void lo_rules_free(lo_rules *r)
{
	size_t i, j;

	if (!r)
		return;
	for (i = 0; i < r->file_count; i++) {
		for (j = 0; j < r->files[i].key_count; j++) {
			free(r->files[i].keys[j].name);
			free(r->files[i].keys[j].include);
		}
		free(r->files[i].keys);
		free(r->files[i].path);
	}
	free(r->files);
	for (i = 0; i < r->entry_count; i++) {
		free(r->entries[i].name);
		free(r->entries[i].value);
	}
	free(r->entries);
	for (i = 0; i < r->warning_count; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->cmake_cache);
	free(r->dir);
	lo_map_free(r->cmake_vars, free);
	lo_pattern_set_dispose(&r->candidates);
	for (i = 0; i < r->host_count; i++) {
		free(r->hosts[i].name);
		free(r->hosts[i].program);
		lo_pattern_set_dispose(&r->hosts[i].match);
		lo_glob_list_dispose(&r->hosts[i].provides);
		lo_glob_list_dispose(&r->hosts[i].needs);
		lo_glob_list_dispose(&r->hosts[i].exports);
		lo_glob_list_dispose(&r->hosts[i].needs_library);
		lo_glob_list_dispose(&r->hosts[i].preload);
		lo_glob_list_dispose(&r->hosts[i].beside);
	}
	free(r->hosts);
	lo_glob_list_dispose(&r->ignore);
	lo_glob_list_dispose(&r->trusted);
	for (i = 0; i < r->rule_count; i++) {
		free((char *)r->rules[i].pub.name);
		free((char *)r->rules[i].pub.reason);
		lo_pattern_set_dispose(&r->rules[i].match);
	}
	free(r->rules);
	free(r);
	lo_libgit2_shutdown();
}

/* --- queries --- */

/* The rules installed with this very program: <exe dir>/LEFTOVER_RULES_RELDIR, or NULL. */
static const char *rules_beside_program(void)
{
	static char dir[PATH_MAX], real[PATH_MAX];
	char *exe = lo_os_self_exe(), *slash = exe ? lo_os_path_last_separator(exe) : NULL;
	struct stat st;
	int n = slash ? snprintf(dir, sizeof(dir), "%.*s/%s", (int)(slash - exe), exe,
				 LEFTOVER_RULES_RELDIR)
		      : -1;

	free(exe);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return NULL;
	/* "/usr/bin/../share/leftover/rules" as "/usr/share/leftover/rules" in messages */
	return realpath(dir, real) && stat(real, &st) == 0 && S_ISDIR(st.st_mode) ? real : NULL;
}

/*
 * A directory compiled in, as realpath gives it, or NULL when it is none.
 * On Windows that adds the drive the program is on (os/posix_win.h):
 * libgit2, which opens the rule files itself, would read "/x" on the
 * current directory's drive, and find no rules from C:.
 */
static const char *built_dir(const char *dir)
{
	static char real[PATH_MAX];
	struct stat st;

	return realpath(dir, real) && stat(real, &st) == 0 && S_ISDIR(st.st_mode) ? real : NULL;
}

const char *lo_rules_default_dir(void)
{
	const char *env = getenv("LEFTOVER_RULES_DIR"), *found;

	if (env && *env)
		return env;
	/* a package unpacked or installed under another prefix than it was built for */
	if ((found = rules_beside_program()) || (found = built_dir(LEFTOVER_RULES_DIR)) ||
	    (found = built_dir(LEFTOVER_SOURCE_RULES_DIR)))
		return found;
	return LEFTOVER_SOURCE_RULES_DIR;
}

/*
 * The forms of `path` (rules.h) that patterns are matched against: a path
 * in a build tree as it is; an absolute one without its '/', and relative
 * to the directory the rules were loaded for when it is below it, which is
 * what rule files written for that directory (its .leftover/rules, --rules)
 * meant. Returns how many.
 */
static size_t path_forms(const lo_rules *r, const char *path, const char *forms[2])
{
	size_t dlen = r->dir ? strlen(r->dir) : 0;

	forms[0] = path;
	if (!lo_os_path_is_absolute(path))
		return 1;
	forms[0] = path + 1;
	/* under / (dlen 1), that is the absolute form itself */
	if (dlen > 1 && !strncmp(path, r->dir, dlen) && path[dlen] == '/' && path[dlen + 1]) {
		forms[1] = path + dlen + 1;
		return 2;
	}
	return 1;
}

static bool set_matches(const lo_rules *r, const pattern_set *ps, const char *path)
{
	const char *forms[2];
	size_t n = path_forms(r, path, forms);

	return lo_pattern_set_matches(ps, forms, n);
}

bool lo_rules_is_candidate(const lo_rules *r, const char *path)
{
	return set_matches(r, &r->candidates, path);
}

/* Has the object one of the traits in `gl`? */
static bool has_any(const glob_list *gl, lo_rules_trait trait, lo_rules_object_fn has,
		    void *payload)
{
	size_t k;

	for (k = 0; has && k < gl->count; k++)
		if (has(trait, gl->globs[k], payload))
			return true;
	return false;
}

const lo_rules_host *lo_rules_host_of(const lo_rules *r, const char *path,
				      lo_rules_object_fn has, void *payload)
{
	size_t i = r->host_count;

	while (i-- > 0) {
		const host *h = &r->hosts[i];

		if (h->match.count && !set_matches(r, &h->match, path))
			continue;
		/* any one trait will do: the cheapest are asked first (a few needed
		   libraries, then the undefined symbols, then every export) */
		if ((!h->needs.count && !h->exports.count && !h->needs_library.count) ||
		    has_any(&h->needs_library, LO_RULES_NEEDS_LIBRARY, has, payload) ||
		    has_any(&h->needs, LO_RULES_NEEDS, has, payload) ||
		    has_any(&h->exports, LO_RULES_EXPORTS, has, payload))
			return h;
	}
	return NULL;
}

const char *lo_rules_host_name(const lo_rules_host *h)
{
	return h->name;
}

const char *lo_rules_host_program(const lo_rules_host *h)
{
	return h->program;
}

bool lo_rules_host_program_vouched(const lo_rules_host *h, const char *program)
{
	return h->program && !h->program_tree && !strcmp(program, h->program);
}

bool lo_rules_trusts_tree(const lo_rules *r, const char *dir)
{
	size_t i;

	for (i = 0; i < r->trusted.count; i++) {
		const char *v = r->trusted.globs[i];
		char *real = strcmp(v, "*") ? realpath(v, NULL) : NULL;
		size_t n = real ? strlen(real) : 0;
		bool in = !strcmp(v, "*") ||
			  (real && !strncmp(dir, real, n) && (dir[n] == '/' || !dir[n] || n == 1));

		free(real);
		if (in)
			return true;
	}
	return false;
}

char *lo_rules_host_program_for(const lo_rules_host *h, const char *abs)
{
	const char *slash = lo_os_path_last_separator(abs);
	size_t i, dir = slash ? (size_t)(slash - abs) : 0;

	for (i = 0; i < h->beside.count; i++) {
		char *p = NULL;

		if (asprintf(&p, "%.*s/%s", (int)dir, slash ? abs : ".", h->beside.globs[i]) < 0)
			abort();
		if (is_executable_file(p)) {
			/* named in the report without "lib/../" */
			char *real = realpath(p, NULL);

			if (!real)
				return p;
			free(p);
			return real;
		}
		free(p);
	}
	return h->program ? lo_xstrdup(h->program) : NULL;
}

const char *const *lo_rules_host_preload(const lo_rules_host *h, size_t *count)
{
	*count = h->preload.count;
	return (const char *const *)h->preload.globs;
}

bool lo_rules_host_preloads(const lo_rules_host *h, const char *library)
{
	size_t i;

	for (i = 0; library && i < h->preload.count; i++) {
		const char *base = lo_os_path_last_separator(h->preload.globs[i]);

		if (!strcmp(base ? base + 1 : h->preload.globs[i], library))
			return true;
	}
	return false;
}

bool lo_rules_host_provides(const lo_rules_host *h, const char *symbol)
{
	return lo_glob_list_matches(&h->provides, symbol);
}

bool lo_rules_symbol_ignored(const lo_rules *r, const char *symbol)
{
	return lo_glob_list_matches(&r->ignore, symbol);
}

const lo_rule *lo_rules_rule_for(const lo_rules *r, const char *path, unsigned on)
{
	size_t i = r->rule_count;

	while (i-- > 0)
		if ((r->rules[i].on & on) && set_matches(r, &r->rules[i].match, path))
			return &r->rules[i].pub;
	return NULL;
}

lo_rules_fail lo_rules_fail_on(const lo_rules *r)
{
	return r->fail;
}

size_t lo_rules_warning_count(const lo_rules *r)
{
	return r->warning_count;
}

const char *lo_rules_warning_at(const lo_rules *r, size_t i)
{
	return i < r->warning_count ? r->warnings[i] : NULL;
}

bool lo_rules_fails(const lo_rules *r, const char *path, unsigned on)
{
	const lo_rule *ru;

	switch (r->fail) {
	case LO_RULES_FAIL_NEVER:
		return false;
	case LO_RULES_FAIL_BROKEN:
		if (!(on & (LO_RULES_ON_BROKEN | LO_RULES_ON_UNJUDGED)))
			return false;
		break;
	case LO_RULES_FAIL_STALE:
		if (!(on & (LO_RULES_ON_BROKEN | LO_RULES_ON_STALE | LO_RULES_ON_UNJUDGED)))
			return false;
		break;
	}
	ru = lo_rules_rule_for(r, path, on);
	return !ru || ru->action != LO_RULES_ACTION_KEEP;
}

int lo_rules_foreach(const lo_rules *r, lo_rules_entry_cb cb, void *payload)
{
	size_t i;
	int ret;

	for (i = 0; i < r->entry_count; i++) {
		const entry *e = &r->entries[i];

		if (e->overridden)
			continue;
		if ((ret = cb(e->name, e->value, r->files[e->file].path, e->line, payload)) != 0)
			return ret;
	}
	return 0;
}
