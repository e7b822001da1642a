/*
 * shim_asdf.c - an asdf shim's program, read from asdf's files (shim.h).
 *
 * asdf since 0.16 (its Go rewrite) writes every shim as
 *   #!/usr/bin/env bash
 *   # asdf-plugin: PLUGIN VERSION     one line per installed version with NAME
 *   exec asdf exec "NAME" "$@"
 * into DATA/shims/NAME, DATA being $ASDF_DATA_DIR or else ~/.asdf. What
 * `asdf exec NAME` then runs (internal/shims FindExecutable,
 * internal/resolve Version, internal/toolversions in asdf's sources):
 *   - the plugin lines are read from DATA/shims/NAME (whichever copy ran);
 *   - for each plugin named there that DATA/plugins/PLUGIN holds, the
 *     versions selected are ASDF_<PLUGIN in upper case>_VERSION, split at
 *     spaces, else those of the first line "PLUGIN V..." in a version file
 *     ($ASDF_DEFAULT_TOOL_VERSIONS_FILENAME, else .tool-versions) from the
 *     current directory up to /, a '#' starting a comment;
 *   - of those, the versions the shim lists are kept, in the shim's order
 *     (not the file's), and "system" last when it was selected;
 *   - the program is DATA/installs/PLUGIN/V/bin/NAME of the first kept
 *     version that has it, or, at "system", NAME on PATH without
 *     DATA/shims (and no further version after it).
 * Where asdf would run a plugin's own script to know (legacy version files
 * turned on in $ASDF_CONFIG_FILE or ~/.asdfrc for a plugin that lists them,
 * a plugin's exec-path or list-bin-paths), where the answer hangs on more
 * than one plugin (asdf takes them in a map's random order), on a "ref:"
 * or "path:" version, or on nothing selected, the files do not say and the
 * shim is left to the caller. So are the shims of asdf 0.15 and before
 * (bash ones, `exec /path/to/asdf exec "NAME" "$@" # asdf_allow: ...`),
 * which searched other files in another order.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts/shim_int.h"
#include "leftover/buf.h"
#include "leftover/deps.h"
#include "leftover/error.h"
#include "leftover/os.h"

/* More plugin lines or selected versions than this is no shim asdf wrote. */
#define ASDF_MAX_WORDS 256

/* A list of words, owned. */
typedef struct words {
	char **v;
	size_t n, cap;
} words;

static void words_free(words *w)
{
	lo_strv_free(w->v, w->n);
	*w = (words){ 0 };
}

static bool words_has(const words *w, const char *s)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], s))
			return true;
	return false;
}

/* The next line of *p, its length in *len; false at the end. */
static bool next_line(const char **p, const char **line, size_t *len)
{
	if (!**p)
		return false;
	*line = *p;
	*len = strcspn(*p, "\n");
	*p += *len + ((*p)[*len] == '\n');
	return true;
}

/* The NAME of a shim's `exec asdf exec "NAME" "$@"` line, owned; NULL when there is none. */
static char *shim_name(const char *text)
{
	static const char head[] = "exec asdf exec \"", tail[] = "\" \"$@\"";
	const char *p = text, *line;
	size_t len;

	while (next_line(&p, &line, &len)) {
		size_t name;

		if (len <= strlen(head) + strlen(tail) || strncmp(line, head, strlen(head)))
			continue;
		name = len - strlen(head) - strlen(tail);
		if (strncmp(line + strlen(head) + name, tail, strlen(tail)) ||
		    memchr(line + strlen(head), '"', name) || memchr(line + strlen(head), '/', name))
			return NULL;
		return lo_xstrndup(line + strlen(head), name);
	}
	return NULL;
}

/*
 * The shim's `# asdf-plugin: PLUGIN VERSION` lines, split at single spaces
 * as asdf splits them: the plugins in *plugins and, when `plugin` is given,
 * that plugin's versions in *versions, each once, in order. False when
 * there are more than a shim has.
 */
static bool shim_plugins(const char *text, const char *plugin, words *plugins, words *versions)
{
	static const char head[] = "# asdf-plugin: ";
	const char *p = text, *line;
	size_t len;

	while (next_line(&p, &line, &len)) {
		const char *name = line + strlen(head), *sp;
		char *n, *v;

		if (len < strlen(head) || strncmp(line, head, strlen(head)))
			continue;
		if (!(sp = memchr(name, ' ', len - strlen(head))))
			continue;
		if (plugins->n >= ASDF_MAX_WORDS || versions->n >= ASDF_MAX_WORDS)
			return false;
		n = lo_xstrndup(name, (size_t)(sp - name));
		v = lo_xstrndup(sp + 1, strcspn(sp + 1, " \n"));
		lo_strv_add_unique(&plugins->v, &plugins->n, &plugins->cap, n);
		if (plugin && !strcmp(n, plugin))
			lo_strv_add_unique(&versions->v, &versions->n, &versions->cap, v);
		free(n);
		free(v);
	}
	return true;
}

/* The words of s[0..len) between spaces, as asdf's parseLine takes them. */
static bool split_words(const char *s, size_t len, words *out)
{
	while (len) {
		size_t w = 0, skip;

		while (w < len && s[w] != ' ')
			w++;
		/* each word trimmed of the white space at its ends (a tab stays inside) */
		for (skip = 0; skip < w && isspace((unsigned char)s[skip]); skip++)
			;
		while (w > skip && isspace((unsigned char)s[w - 1]))
			w--;
		if (w > skip) {
			if (out->n >= ASDF_MAX_WORDS)
				return false;
			lo_array_grow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
			out->v[out->n++] = lo_xstrndup(s + skip, w - skip);
		}
		while (w < len && s[w] != ' ')
			w++;
		s += w + (w < len);
		len -= w + (w < len);
	}
	return true;
}

/*
 * The versions a version file's text gives `plugin`: 1 with them in *out,
 * 0 when it has no line for the plugin, -1 when it is no file asdf wrote.
 */
static int file_versions(const char *text, const char *plugin, words *out)
{
	const char *p = text, *line;
	size_t len;

	while (next_line(&p, &line, &len)) {
		words w = { 0 };
		const char *hash = memchr(line, '#', len);
		bool ok = split_words(line, hash ? (size_t)(hash - line) : len, &w);

		if (ok && w.n && !strcmp(w.v[0], plugin)) {
			for (size_t i = 1; i < w.n; i++)
				lo_strv_add_unique(&out->v, &out->n, &out->cap, w.v[i]);
			words_free(&w);
			return 1;
		}
		words_free(&w);
		if (!ok)
			return -1;
	}
	return 0;
}

/*
 * The versions selected for `plugin`, with where from in *from (owned):
 * 1, or 0 when none is, -1 when the files do not say.
 */
static int selected(const char *plugin, words *out, char **from)
{
	lo_buf env = LO_BUF_INIT;
	const char *value, *name = getenv("ASDF_DEFAULT_TOOL_VERSIONS_FILENAME");
	char *dir = lo_shim_current_dir(), *slash;
	int found = 0;

	lo_buf_puts(&env, "ASDF_");
	for (const char *c = plugin; *c; c++)
		lo_buf_putc(&env, (char)toupper((unsigned char)*c));
	lo_buf_puts(&env, "_VERSION");
	if ((value = getenv(lo_buf_cstr(&env))) && *value) {
		/* set, even to spaces only, it is the choice: asdf looks no further */
		found = split_words(value, strlen(value), out) ? 1 : -1;
		*from = lo_buf_detach(&env);
		free(dir);
		return found;
	}
	lo_buf_dispose(&env);
	if (!name || !*name)
		name = ".tool-versions";
	while (dir && !found) {
		lo_buf f = LO_BUF_INIT;
		off_t size = 0;
		char *text;

		lo_buf_printf(&f, "%s/%s", strcmp(dir, "/") ? dir : "", name);
		if ((text = lo_shim_read_small(lo_buf_cstr(&f), LO_SHIM_VERSION_FILE_MAX, &size))) {
			found = size > (off_t)LO_SHIM_VERSION_FILE_MAX ? -1 : file_versions(text, plugin, out);
			free(text);
		}
		if (found)
			*from = lo_buf_detach(&f);
		lo_buf_dispose(&f);
		if (!strcmp(dir, "/") || !(slash = lo_os_path_last_separator(dir)))
			break;
		slash[slash == dir] = '\0';
	}
	free(dir);
	return found;
}

/* Whether asdf would run one of the plugin's scripts to find NAME. */
static bool plugin_decides(const char *data, const char *plugin)
{
	static const char *const scripts[] = { "exec-path", "list-bin-paths" };
	const char *config = getenv("ASDF_CONFIG_FILE"), *home = getenv("HOME");
	lo_buf b = LO_BUF_INIT;
	bool decides = false, legacy = false;
	off_t size = 0;
	char *text;

	for (size_t i = 0; i < sizeof scripts / sizeof *scripts && !decides; i++) {
		lo_buf_clear(&b);
		lo_buf_printf(&b, "%s/plugins/%s/bin/%s", data, plugin, scripts[i]);
		lo_deps_note_path(lo_buf_cstr(&b));
		decides = access(lo_buf_cstr(&b), F_OK) == 0;
	}
	lo_buf_clear(&b);
	if (config && *config)
		lo_buf_puts(&b, config);
	else
		lo_buf_printf(&b, "%s/.asdfrc", home ? home : "");
	/* legacy version files: the plugin's script names them */
	if (!decides && (text = lo_shim_read_small(lo_buf_cstr(&b), LO_SHIM_VERSION_FILE_MAX, &size))) {
		const char *p = text, *line;
		size_t len;

		while (next_line(&p, &line, &len)) {
			words w = { 0 };
			char *l = lo_xstrndup(line, len), *eq = strchr(l, '=');

			if (eq) {
				*eq = ' ';
				if (split_words(l, strlen(l), &w) && w.n == 2 &&
				    !strcmp(w.v[0], "legacy_version_file"))
					legacy = !strcmp(w.v[1], "yes");
			}
			words_free(&w);
			free(l);
		}
		free(text);
		lo_buf_clear(&b);
		lo_buf_printf(&b, "%s/plugins/%s/bin/list-legacy-filenames", data, plugin);
		lo_deps_note_path(lo_buf_cstr(&b));
		decides = legacy && access(lo_buf_cstr(&b), F_OK) == 0;
	}
	lo_buf_dispose(&b);
	return decides;
}

/* DATA/plugins/PLUGIN is there. */
static bool plugin_exists(const char *data, const char *plugin)
{
	lo_buf b = LO_BUF_INIT;
	struct stat st;
	bool yes;

	lo_buf_printf(&b, "%s/plugins/%s", data, plugin);
	lo_deps_note_path(lo_buf_cstr(&b));
	yes = stat(lo_buf_cstr(&b), &st) == 0 && S_ISDIR(st.st_mode);
	lo_buf_dispose(&b);
	return yes;
}

/*
 * The program of the first of `kept` that has NAME, as FindExecutable
 * tries them, with that version in *version; owned, or NULL (also when a
 * version is not one asdf installs under its own name: ref:, path:).
 */
static char *first_program(const char *data, const char *plugin, const words *kept,
			   const char *name, const char **version)
{
	for (size_t i = 0; i < kept->n; i++) {
		lo_buf b = LO_BUF_INIT;
		char *hit;

		*version = kept->v[i];
		if (!strcmp(kept->v[i], "system")) {
			lo_buf_printf(&b, "%s/shims", data);
			hit = lo_shim_system_program(lo_buf_cstr(&b), name);
			lo_buf_dispose(&b);
			return hit;
		}
		if (strchr(kept->v[i], ':') || strchr(kept->v[i], '/') || !strcmp(kept->v[i], ".."))
			return NULL;
		lo_buf_printf(&b, "%s/installs/%s/%s/bin/%s", data, plugin, kept->v[i], name);
		if (lo_shim_is_program(lo_buf_cstr(&b)))
			return lo_buf_detach(&b);
		lo_buf_dispose(&b);
	}
	return NULL;
}

/*
 * The one plugin of the shim's that asdf's files select versions for:
 * 1 with its name, the versions kept and where they came from; 0 when
 * none or more than one does, or the files do not say.
 */
static int pick_plugin(const char *data, const char *text, char **plugin, words *kept,
		       char **from)
{
	words plugins = { 0 }, none = { 0 };
	int picked = 0;

	if (!shim_plugins(text, NULL, &plugins, &none))
		picked = -1;
	for (size_t i = 0; i < plugins.n && picked >= 0; i++) {
		words listed = { 0 }, sel = { 0 };
		char *where = NULL;
		int s = 0;

		if (!plugin_exists(data, plugins.v[i]))
			continue;
		if (plugin_decides(data, plugins.v[i]) ||
		    !shim_plugins(text, plugins.v[i], &none, &listed) ||
		    (s = selected(plugins.v[i], &sel, &where)) < 0 || (s > 0 && picked)) {
			picked = -1;
		} else if (s > 0) {
			for (size_t j = 0; j < listed.n; j++)
				if (words_has(&sel, listed.v[j]))
					lo_strv_add_unique(&kept->v, &kept->n, &kept->cap, listed.v[j]);
			if (words_has(&sel, "system"))
				lo_strv_add_unique(&kept->v, &kept->n, &kept->cap, "system");
			*plugin = lo_xstrdup(plugins.v[i]);
			*from = where;
			where = NULL;
			picked = 1;
		}
		free(where);
		words_free(&listed);
		words_free(&sel);
	}
	if (picked < 0) {
		free(*plugin);
		free(*from);
		*plugin = *from = NULL;
	}
	words_free(&plugins);
	words_free(&none);
	return picked > 0;
}

int lo_shim_asdf_resolve(const char *program, const char *text, char **out, char **how)
{
	const char *env = getenv("ASDF_DATA_DIR"), *home = getenv("HOME"), *version = NULL;
	char *name = shim_name(text), *data, *shim = NULL, *own = NULL, *from = NULL;
	char *plugin = NULL;
	words kept = { 0 };
	off_t size = 0;

	*out = *how = NULL;
	if (!name)
		return 0;
	if (env && *env)
		data = lo_xstrdup(env);
	else if (asprintf(&data, "%s/.asdf", home ? home : "") < 0)
		abort();
	if (asprintf(&shim, "%s/shims/%s", data, name) < 0)
		abort();
	own = lo_shim_read_small(shim, LO_SHIM_MAX, &size);
	if (own && size <= (off_t)LO_SHIM_MAX && pick_plugin(data, own, &plugin, &kept, &from))
		*out = first_program(data, plugin, &kept, name, &version);
	if (*out && asprintf(how, "'%s' is an asdf shim; asdf's files select %s version '%s' "
			     "(from %s), whose '%s' is the host", program, plugin, version, from,
			     *out) < 0)
		abort();
	words_free(&kept);
	free(plugin);
	free(from);
	free(own);
	free(shim);
	free(data);
	free(name);
	return *out != NULL;
}
