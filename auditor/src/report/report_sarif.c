/*
 * report_sarif.c - SARIF 2.1.0 for code-scanning uploads (report_ci.h).
 *
 * One run, one rule per verdict (stale, broken, unreadable), one result per
 * finding. Code scanning shows an alert only on a file of the repository,
 * so a result is located on the file blame.h holds responsible (the changed
 * CMakeLists.txt, else the top one), relative to %SRCROOT%, with a region
 * on the line naming the artifact; the artifact's own path is in the
 * message. Only outside any known source tree is it located on the
 * artifact, relative to BUILDROOT (the scanned root). partialFingerprints
 * hash the verdict and the artifact's path, so an alert stays one alert
 * across runs; automationDetails.id keeps builds and configurations apart. URIs are percent-encoded
 * byte by byte (RFC 3986 unreserved characters and '/' stay), so any file
 * name survives; messages go through lo_report_quote_path to be UTF-8.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "leftover/blame.h"
#include "leftover/buf.h"
#include "leftover/buildsys.h"
#include "leftover/git.h"
#include "leftover/report.h"
#include "leftover/report_ci.h"


static const struct rule {
	lo_verdict verdict;
	const char *name, *level, *text, *help;
} rules[] = {
	{ LO_VERDICT_BROKEN, "BrokenArtifact", "error",
	  "A shared object or Python extension in the build tree would not load.",
	  "The loader would reject this file (a missing symbol, version or library). Rebuild it, "
	  "or remove it with 'leftover clean --broken' when nothing should load it." },
	{ LO_VERDICT_STALE, "StaleArtifact", "warning",
	  "An artifact the current build no longer produces is still in the build tree.",
	  "Left over from an earlier build, it can shadow what the current build produces. "
	  "'leftover clean' moves it into a quarantine that 'leftover restore' undoes." },
	{ LO_VERDICT_UNREADABLE, "UnreadableArtifact", "warning",
	  "A candidate file could not be read or parsed.",
	  "Check its permissions and whether it is a truncated or corrupt ELF file." },
	{ LO_VERDICT_UNJUDGED, "UnjudgedArtifact", "warning",
	  "A candidate could not be judged: the program that loads it could not be used.",
	  "Name the host with --python or --host, or fix the program a CMakeCache.txt or a "
	  "[host] rule names; the reason says what went wrong with it." },
};

static json_t *text(const char *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "text", json_string(s));
	return o;
}

static char *uri_encode(const char *raw)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	lo_buf b = LO_BUF_INIT;

	lo_buf_puts(&b, "");
	for (p = (const unsigned char *)raw; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p)) {
			lo_buf_putc(&b, (char)*p);
		} else {
			lo_buf_putc(&b, '%');
			lo_buf_putc(&b, hex[*p >> 4]);
			lo_buf_putc(&b, hex[*p & 15]);
		}
	}
	return lo_buf_detach(&b);
}

static json_t *rule_list(void)
{
	json_t *list = json_array();
	lo_buf help = LO_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		json_t *r = json_object(), *cfg = json_object();

		json_object_set_new(r, "id", json_string(lo_verdict_str(rules[i].verdict)));
		json_object_set_new(r, "name", json_string(rules[i].name));
		json_object_set_new(r, "shortDescription", text(rules[i].text));
		json_object_set_new(r, "fullDescription", text(rules[i].help));
		json_object_set_new(r, "help", text(rules[i].help));
		lo_buf_clear(&help);
		lo_buf_printf(&help, "%s#%s", LEFTOVER_HOMEPAGE, lo_verdict_str(rules[i].verdict));
		json_object_set_new(r, "helpUri", json_string(lo_buf_cstr(&help)));
		json_object_set_new(cfg, "level", json_string(rules[i].level));
		json_object_set_new(r, "defaultConfiguration", cfg);
		json_array_append_new(list, r);
	}
	lo_buf_dispose(&help);
	return list;
}

/*
 * The file URI of absolute path `abs` (RFC 8089): file:///usr/x; a drive
 * path (leftover.exe's) as file:///C:/x, the drive's colon kept and a
 * backslash taken as the separator it is there.
 */
static char *file_uri(const char *abs)
{
	bool drive = isalpha((unsigned char)abs[0]) && abs[1] == ':';
	char *copy = lo_xstrdup(abs), *enc, *p;
	lo_buf b = LO_BUF_INIT;

	for (p = copy; drive && *p; p++)
		if (*p == '\\')
			*p = '/';
	enc = uri_encode(copy + (drive ? 2 : 0));
	lo_buf_printf(&b, "file://%s%.*s%s", drive ? "/" : "", drive ? 2 : 0, copy, enc);
	free(enc);
	free(copy);
	return lo_buf_detach(&b);
}

/* A region over line `line` of a text file, start and end, as GitHub and SARIF2017 want it. */
static json_t *region(unsigned line, unsigned columns)
{
	return json_pack("{s:I, s:i, s:I, s:I}", "startLine", (json_int_t)line, "startColumn", 1,
			 "endLine", (json_int_t)line, "endColumn", (json_int_t)columns + 1);
}

/*
 * The base id for repository `repo` (absolute, ending in '/'), added to
 * `bases` on first use: "%SRCROOT%", as GitHub's upload names the checkout,
 * then "%SRCROOT2%", ... for a scan over trees of several repositories.
 */
static const char *base_id(json_t *bases, const char *repo)
{
	char name[32];
	char *u = file_uri(repo);
	const char *key;
	json_t *v;
	size_t n = 0;

	json_object_foreach(bases, key, v) {
		if (!strcmp(json_string_value(json_object_get(v, "uri")), u)) {
			free(u);
			return key;
		}
		n += !strncmp(key, "%SRCROOT", 8);
	}
	if (n)
		snprintf(name, sizeof(name), "%%SRCROOT%zu%%", n + 1);
	else
		snprintf(name, sizeof(name), "%%SRCROOT%%");
	json_object_set_new(bases, name, json_pack("{s:s}", "uri", u));
	free(u);
	return json_object_iter_key(json_object_iter_at(bases, name));
}

static json_t *result_of(const lo_scan_result *res, const lo_file *f, const lo_clean_action *a,
			 size_t rule, json_t *bases)
{
	json_t *r = json_object(), *loc = json_object(), *phys = json_object(),
	       *art = json_object(), *props = json_object(), *reasons = json_array();
	char *uri, *summary = lo_report_summary_of(f), *abs = lo_report_abs_path(res, f), *path,
	     fp[65];
	lo_blame *b = lo_blame_new(abs);
	lo_buf msg = LO_BUF_INIT, key = LO_BUF_INIT;
	size_t i;

	path = lo_report_artifact_name(res, f, b);
	lo_buf_printf(&msg, "%s: %s", path, summary);
	if (a && a->status == LO_CLEAN_MOVED)
		lo_buf_puts(&msg, " (moved to the quarantine)");
	else if (a && a->status == LO_CLEAN_REMOVED)
		lo_buf_puts(&msg, " (deleted)");
	json_object_set_new(r, "ruleId", json_string(lo_verdict_str(f->verdict)));
	json_object_set_new(r, "ruleIndex", json_integer((json_int_t)rule));
	json_object_set_new(r, "level", json_string(rules[rule].level));
	json_object_set_new(r, "message", text(msg.ptr));
	/* on the repository's file behind it where known, else on the artifact */
	uri = uri_encode(b ? b->file : f->path);
	json_object_set_new(art, "uri", json_string(uri));
	json_object_set_new(art, "uriBaseId", json_string(b ? base_id(bases, b->repo) : "BUILDROOT"));
	json_object_set_new(phys, "artifactLocation", art);
	json_object_set_new(phys, "region", b ? region(b->line, b->line_length) : region(1, 0));
	json_object_set_new(loc, "physicalLocation", phys);
	json_object_set_new(r, "locations", json_pack("[o]", loc));
	/* the same finding on the same artifact is the same alert, run after run */
	lo_buf_printf(&key, "%s", lo_verdict_str(f->verdict));
	lo_buf_add(&key, "", 1);
	lo_buf_puts(&key, f->path);
	lo_clean_sha256_mem(key.ptr, key.len, fp);
	json_object_set_new(r, "partialFingerprints", json_pack("{s:s}", "leftoverArtifact/v1", fp));
	for (i = 0; i < f->reason_count; i++) {
		json_array_append_new(reasons,
				       json_string(lo_reason_kind_str(f->reasons[i].kind)));
	}
	json_object_set_new(props, "artifact", json_string(path));
	json_object_set_new(props, "kind", json_string(lo_kind_str(f->kind)));
	json_object_set_new(props, "reasons", reasons);
	if (a)
		json_object_set_new(props, "action", json_string(lo_clean_status_str(a->status)));
	json_object_set_new(r, "properties", props);
	lo_buf_dispose(&msg);
	lo_buf_dispose(&key);
	lo_blame_free(b);
	free(uri);
	free(summary);
	free(path);
	free(abs);
	return r;
}

/*
 * automationDetails.id: "leftover/<build dir>/<configuration>/", the build
 * dir relative to its repository (the same on every runner), so that two
 * matrix jobs' uploads stay apart and each run replaces its own.
 */
static char *automation_id(const lo_scan_result *res)
{
	lo_git *g = NULL;
	const char *dir = res->root;
	char *config = lo_buildsys_cache_value(res->root, "CMAKE_BUILD_TYPE");
	lo_buf id = LO_BUF_INIT;

	if (lo_git_open(&g, res->root) == 0 && g &&
	    !strncmp(res->root, lo_git_workdir(g), strlen(lo_git_workdir(g))))
		dir = res->root + strlen(lo_git_workdir(g));
	else if (g && !strncmp(lo_git_workdir(g), res->root, strlen(res->root)))
		dir = "."; /* the repository's top */
	lo_buf_printf(&id, "leftover/%s/%s/", *dir ? dir : ".", config && *config ? config : "default");
	lo_git_free(g);
	free(config);
	return lo_buf_detach(&id);
}

int lo_report_write_sarif(FILE *out, const lo_scan_result *res, const lo_clean_result *clean)
{
	json_t *doc = json_object(), *run = json_object(), *tool = json_object(),
	       *driver = json_object(), *results = json_array(), *base = json_object();
	char *root_uri = file_uri(res->root), *id = automation_id(res);
	lo_buf uri = LO_BUF_INIT;
	size_t i, k;
	int rc;

	json_object_set_new(doc, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(doc, "version", json_string("2.1.0"));
	json_object_set_new(driver, "name", json_string("leftover"));
	json_object_set_new(driver, "version", json_string(LEFTOVER_VERSION));
	json_object_set_new(driver, "semanticVersion", json_string(LEFTOVER_VERSION));
	json_object_set_new(driver, "informationUri", json_string(LEFTOVER_HOMEPAGE));
	json_object_set_new(driver, "rules", rule_list());
	json_object_set_new(tool, "driver", driver);
	json_object_set_new(run, "tool", tool);
	json_object_set_new(run, "automationDetails", json_pack("{s:s}", "id", id));
	/* a directory URI ends in '/', or relative URIs would resolve against its parent */
	lo_buf_printf(&uri, "%s%s", root_uri, root_uri[strlen(root_uri) - 1] == '/' ? "" : "/");
	json_object_set_new(base, "BUILDROOT", json_pack("{s:s}", "uri", uri.ptr));
	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		const lo_clean_action *a;

		for (k = 0; k < sizeof(rules) / sizeof(rules[0]); k++)
			if (rules[k].verdict == f->verdict)
				break;
		a = lo_report_action_of(clean, f);
		/* a file a rule keeps is, by that rule, no finding */
		if (k < sizeof(rules) / sizeof(rules[0]) && !(a && a->status == LO_CLEAN_KEPT_RULE))
			json_array_append_new(results, result_of(res, f, a, k, base));
	}
	json_object_set_new(run, "originalUriBaseIds", base);
	json_object_set_new(run, "results", results);
	json_object_set_new(run, "columnKind", json_string("unicodeCodePoints"));
	json_object_set_new(doc, "runs", json_pack("[o]", run));
	rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	fputc('\n', out);
	json_decref(doc);
	lo_buf_dispose(&uri);
	free(root_uri);
	free(id);
	return rc < 0 || ferror(out) ? -1 : 0;
}
