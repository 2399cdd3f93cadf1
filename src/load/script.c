/* script: wrk's Lua scripting API on Lua 5.4. See script.h for the model.
 *
 * Per state: the `wrk` table (built by BOOT below), the metatables "tb.thread"
 * (a userdata pointing at a struct sthread) and "tb.stats" (a userdata pointing at
 * a struct stats). Per thread (struct sthread): its lua_State, the static request
 * (when the script has no request()), the request buffer handed to the engine,
 * the stop flag and the first hook error. Invariant: a thread state is touched by
 * its load thread only while tb_load_run runs, and by the caller otherwise. */
#include "load/script.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/linkage.h"
#include "net/http_req.h"

struct sthread {
    tb_script *s;
    lua_State *L;
    uint32_t index;
    int stop;          /* thread:stop() */
    tb_buf stat;       /* the static request (no request() function) */
    tb_buf req;        /* the last request handed to the engine */
    bool has_request;  /* request() is a function */
    bool has_response; /* response() is a function */
    bool has_delay;    /* delay() is a function */
    char error[TB_ERR_MAX];
};

struct tb_script {
    lua_State *L; /* main: setup, done */
    uint32_t nthreads;
    struct sthread *ts;
    void **ctx;
    tb_load_hooks hooks;
    uint32_t pipeline;
    tb_buf first; /* thread 0's first request */
    char addr[96];
};

/* The `wrk` table, in Lua: defaults, format() and init() with wrk's behaviour
 * (Host from the URL unless a header gives one; Content-Length from the body). */
static const char BOOT[] =
    "local wrk = {scheme = 'http', host = 'localhost', port = nil, method = 'GET',\n"
    "             path = '/', headers = {}, body = nil, thread = nil}\n"
    "function wrk.format(method, path, headers, body)\n"
    "  method, path = method or wrk.method, path or wrk.path\n"
    "  headers, body = headers or wrk.headers, body or wrk.body\n"
    "  local out = {method .. ' ' .. path .. ' HTTP/1.1'}\n"
    "  local host = headers['Host'] or wrk.headers['Host']\n"
    "  if host then out[#out + 1] = 'Host: ' .. host end\n"
    "  for name, value in pairs(headers) do\n"
    "    if name ~= 'Host' and name ~= 'Content-Length' then\n"
    "      out[#out + 1] = name .. ': ' .. tostring(value)\n"
    "    end\n"
    "  end\n"
    "  if body then out[#out + 1] = 'Content-Length: ' .. #body end\n"
    "  return table.concat(out, '\\r\\n') .. '\\r\\n\\r\\n' .. (body or '')\n"
    "end\n"
    "function wrk.init(args)\n"
    "  if not wrk.headers['Host'] then\n"
    "    local host = wrk.host\n"
    "    if host:find(':', 1, true) then host = '[' .. host .. ']' end\n"
    "    if wrk.port then host = host .. ':' .. wrk.port end\n"
    "    wrk.headers['Host'] = host\n"
    "  end\n"
    "  if type(init) == 'function' then init(args) end\n"
    "  local req = wrk.format()\n"
    "  wrk.request = function() return req end\n"
    "end\n"
    "return wrk\n";

/* ---- values across states (thread:get/set) ---- */

static int copy_value(lua_State *from, int idx, lua_State *to, int depth)
{
    idx = lua_absindex(from, idx);
    switch (lua_type(from, idx)) {
    case LUA_TNIL:
        lua_pushnil(to);
        return 0;
    case LUA_TBOOLEAN:
        lua_pushboolean(to, lua_toboolean(from, idx));
        return 0;
    case LUA_TNUMBER:
        if (lua_isinteger(from, idx))
            lua_pushinteger(to, lua_tointeger(from, idx));
        else
            lua_pushnumber(to, lua_tonumber(from, idx));
        return 0;
    case LUA_TSTRING: {
        size_t n;
        const char *p = lua_tolstring(from, idx, &n);
        lua_pushlstring(to, p, n);
        return 0;
    }
    case LUA_TTABLE:
        if (depth > 32)
            return -1;
        lua_newtable(to);
        lua_pushnil(from);
        while (lua_next(from, idx)) {
            if (copy_value(from, -2, to, depth + 1) < 0 ||
                copy_value(from, -1, to, depth + 1) < 0) {
                lua_pop(from, 2);
                return -1;
            }
            lua_settable(to, -3);
            lua_pop(from, 1);
        }
        return 0;
    default:
        return -1;
    }
}

/* ---- the thread userdata ---- */

static struct sthread *check_thread(lua_State *L)
{
    return *(struct sthread **)luaL_checkudata(L, 1, "tb.thread");
}

static int thread_get(lua_State *L)
{
    struct sthread *t = check_thread(L);
    const char *name = luaL_checkstring(L, 2);
    if (t->L == L) {
        lua_getglobal(L, name);
        return 1;
    }
    lua_getglobal(t->L, name);
    int rc = copy_value(t->L, -1, L, 0);
    lua_pop(t->L, 1);
    if (rc < 0)
        return luaL_error(L, "thread:get('%s'): cannot copy a %s across states", name,
                          luaL_typename(t->L, -1));
    return 1;
}

static int thread_set(lua_State *L)
{
    struct sthread *t = check_thread(L);
    const char *name = luaL_checkstring(L, 2);
    lua_settop(L, 3);
    if (t->L == L) {
        lua_setglobal(L, name);
        return 0;
    }
    if (copy_value(L, 3, t->L, 0) < 0)
        return luaL_error(L, "thread:set('%s'): cannot copy a %s across states", name,
                          luaL_typename(L, 3));
    lua_setglobal(t->L, name);
    return 0;
}

static int thread_stop(lua_State *L)
{
    struct sthread *t = check_thread(L);
    __atomic_store_n(&t->stop, 1, __ATOMIC_RELAXED);
    return 0;
}

static int thread_index(lua_State *L)
{
    struct sthread *t = check_thread(L);
    const char *key = luaL_checkstring(L, 2);
    if (!strcmp(key, "get"))
        lua_pushcfunction(L, thread_get);
    else if (!strcmp(key, "set"))
        lua_pushcfunction(L, thread_set);
    else if (!strcmp(key, "stop"))
        lua_pushcfunction(L, thread_stop);
    else if (!strcmp(key, "addr"))
        lua_pushstring(L, t->s->addr);
    else if (!strcmp(key, "id"))
        lua_pushinteger(L, (lua_Integer)t->index);
    else
        lua_pushnil(L);
    return 1;
}

static int thread_newindex(lua_State *L)
{
    const char *key = luaL_checkstring(L, 2);
    return luaL_error(L, "thread.%s cannot be set (teebench loads one target)", key);
}

static void push_thread(lua_State *L, struct sthread *t)
{
    struct sthread **u = lua_newuserdatauv(L, sizeof *u, 0);
    *u = t;
    luaL_setmetatable(L, "tb.thread");
}

/* ---- the stats userdata (done) ---- */

struct stats {
    const tb_hist *h;
    double scale; /* histogram unit -> Lua unit */
};

static struct stats *check_stats(lua_State *L)
{
    return luaL_checkudata(L, 1, "tb.stats");
}

static int stats_percentile(lua_State *L)
{
    struct stats *st = check_stats(L);
    double p = luaL_checknumber(L, 2);
    if (!(p > 0 && p <= 100))
        return luaL_error(L, "percentile: want 0 < p <= 100, got %f", p);
    lua_pushnumber(L, (double)tb_hist_percentile(st->h, p) * st->scale);
    return 1;
}

static int stats_index(lua_State *L)
{
    struct stats *st = check_stats(L);
    const char *key = luaL_checkstring(L, 2);
    const tb_hist *h = st->h;
    double mean = tb_hist_mean(h);
    if (!strcmp(key, "min"))
        lua_pushnumber(L, h->count ? (double)h->min * st->scale : 0.0);
    else if (!strcmp(key, "max"))
        lua_pushnumber(L, (double)h->max * st->scale);
    else if (!strcmp(key, "mean"))
        lua_pushnumber(L, mean * st->scale);
    else if (!strcmp(key, "stdev"))
        lua_pushnumber(L, tb_hist_stdev(h, mean) * st->scale);
    else if (!strcmp(key, "percentile"))
        lua_pushcfunction(L, stats_percentile);
    else
        lua_pushnil(L);
    return 1;
}

/* #stats: the number of distinct recorded values (counters in use). */
static int stats_len(lua_State *L)
{
    struct stats *st = check_stats(L);
    lua_Integer n = 0;
    for (uint32_t i = 0; i < st->h->ncounts; i++)
        n += st->h->counts[i] != 0;
    lua_pushinteger(L, n);
    return 1;
}

/* stats(i) -> value, count of the i-th distinct value (1-based, ascending). */
static int stats_call(lua_State *L)
{
    struct stats *st = check_stats(L);
    lua_Integer want = luaL_checkinteger(L, 2), k = 0;
    for (uint32_t i = 0; i < st->h->ncounts; i++) {
        if (st->h->counts[i] && ++k == want) {
            uint64_t v = tb_hist_highest_equiv(i);
            if (v > st->h->max)
                v = st->h->max;
            lua_pushnumber(L, (double)v * st->scale);
            lua_pushinteger(L, (lua_Integer)st->h->counts[i]);
            return 2;
        }
    }
    lua_pushnil(L);
    lua_pushinteger(L, 0);
    return 2;
}

/* ---- states ---- */

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
    return 1;
}

/* Calls the function under nargs arguments on the stack; on error fills msg. */
static int pcall(lua_State *L, int nargs, int nres, char *msg, size_t size, const char *what)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    if (rc != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        /* the first line is the message; the traceback follows */
        int n = m ? (int)strcspn(m, "\n") : 0;
        snprintf(msg, size, "%s: %.*s", what, n, m ? m : "error");
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

static void set_str(lua_State *L, const char *key, const char *v)
{
    if (v)
        lua_pushstring(L, v);
    else
        lua_pushnil(L);
    lua_setfield(L, -2, key);
}

/* The self-contained build loads no shared object (base/linkage.h): require finds
   no C module (an empty package.cpath) and package.loadlib says why. Lua modules
   still load. */
static const char NO_C_MODULES[] =
    "package.cpath = ''\n"
    "package.loadlib = function(path) return nil, 'the self-contained teebench (make static) "
    "loads no C module (' .. tostring(path) .. '); the ordinary build does', 'absent' end\n";

/* A new state with the libraries, the metatables, `wrk` for the target, the script. */
static lua_State *new_state(const char *file, const tb_script_target *t, tb_err *err)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        tb_errf(err, "script: out of memory");
        return NULL;
    }
    luaL_openlibs(L);
    if (tb_linkage_static() && luaL_dostring(L, NO_C_MODULES) != LUA_OK) {
        tb_errf(err, "script: cannot set up package for the self-contained build");
        lua_close(L);
        return NULL;
    }
    static const luaL_Reg thread_mt[] = {
        {"__index", thread_index}, {"__newindex", thread_newindex}, {NULL, NULL}};
    static const luaL_Reg stats_mt[] = {
        {"__index", stats_index}, {"__len", stats_len}, {"__call", stats_call}, {NULL, NULL}};
    luaL_newmetatable(L, "tb.thread");
    luaL_setfuncs(L, thread_mt, 0);
    luaL_newmetatable(L, "tb.stats");
    luaL_setfuncs(L, stats_mt, 0);
    lua_pop(L, 2);
    char msg[TB_ERR_MAX];
    if (luaL_loadbufferx(L, BOOT, sizeof BOOT - 1, "=wrk", "t") != LUA_OK ||
        pcall(L, 0, 1, msg, sizeof msg, "wrk") < 0) {
        tb_errf(err, "script: cannot set up the wrk table");
        lua_close(L);
        return NULL;
    }
    set_str(L, "scheme", t->scheme);
    set_str(L, "host", t->host);
    set_str(L, "port", t->port);
    set_str(L, "path", t->path);
    lua_getfield(L, -1, "headers");
    for (int i = 0; i < t->nheaders; i++) {
        const char *h = t->headers[i], *colon = strchr(h, ':');
        if (!colon)
            continue;
        size_t n = (size_t)(colon - h);
        if (n == 4 && !strncasecmp(h, "host", 4)) /* wrk.init looks for "Host" */
            lua_pushliteral(L, "Host");
        else
            lua_pushlstring(L, h, n);
        lua_pushstring(L, colon[1] == ' ' ? colon + 2 : colon + 1);
        lua_settable(L, -3);
    }
    lua_pop(L, 1);
    lua_setglobal(L, "wrk");
    if (luaL_loadfilex(L, file, "t") != LUA_OK) {
        tb_errf(err, "script: %s", lua_tostring(L, -1));
        lua_close(L);
        return NULL;
    }
    if (pcall(L, 0, 0, msg, sizeof msg, file) < 0) {
        tb_errf(err, "script: %s", msg);
        lua_close(L);
        return NULL;
    }
    return L;
}

static bool is_function(lua_State *L, const char *name)
{
    int type = lua_getglobal(L, name);
    lua_pop(L, 1);
    return type == LUA_TFUNCTION;
}

/* ---- hooks ---- */

/* Calls request() (user) or wrk.request() (the static one) in t's state into out. */
static int call_request(struct sthread *t, bool user, tb_buf *out)
{
    lua_State *L = t->L;
    if (user) {
        lua_getglobal(L, "request");
    } else {
        lua_getglobal(L, "wrk");
        lua_getfield(L, -1, "request");
        lua_remove(L, -2);
    }
    if (pcall(L, 0, 1, t->error, sizeof t->error, "request()") < 0)
        return -1;
    size_t n;
    const char *p = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
    if (!p || n == 0) {
        snprintf(t->error, sizeof t->error, "request(): returned %s, not a request string",
                 p ? "an empty string" : luaL_typename(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    out->len = 0;
    int rc = tb_buf_append(out, p, n);
    lua_pop(L, 1);
    if (rc < 0)
        snprintf(t->error, sizeof t->error, "request(): out of memory");
    return rc;
}

static int hook_request(void *ctx, const uint8_t **req, size_t *len)
{
    struct sthread *t = ctx;
    if (!t->has_request) { /* wrk's static request: no Lua call per request */
        *req = t->stat.p;
        *len = t->stat.len;
        return 0;
    }
    if (call_request(t, true, &t->req) < 0)
        return -1;
    *req = t->req.p;
    *len = t->req.len;
    return 0;
}

/* The response() hook's view of a response: net/http_resp parses the raw bytes
 * again with a sink that puts the final response's header fields into the table on
 * the top of the Lua stack and its payload (chunk framing removed) into body. */
struct resp_sink {
    lua_State *L;
    const uint8_t *raw;
    tb_buf *body;
    bool oom;
};

static void sink_field(void *ctx, uint32_t name_off, uint32_t name_len, uint32_t value_off,
                       uint32_t value_len)
{
    struct resp_sink *r = ctx;
    lua_pushlstring(r->L, (const char *)r->raw + name_off, name_len);
    lua_pushlstring(r->L, (const char *)r->raw + value_off, value_len);
    lua_settable(r->L, -3);
}

static void sink_interim(void *ctx) /* a 1xx response's fields are not the response's */
{
    struct resp_sink *r = ctx;
    lua_pop(r->L, 1);
    lua_newtable(r->L);
}

static void sink_body(void *ctx, const uint8_t *p, size_t n)
{
    struct resp_sink *r = ctx;
    if (!r->oom && tb_buf_append(r->body, p, n) < 0)
        r->oom = true;
}

static int hook_response(void *ctx, const tb_http_resp *p, const uint8_t *raw, size_t len)
{
    struct sthread *t = ctx;
    if (!t->has_response)
        return 0;
    lua_State *L = t->L;
    lua_getglobal(L, "response");
    lua_pushinteger(L, p->status);
    lua_newtable(L);
    struct resp_sink r = {L, raw, &t->req, false};
    const tb_http_resp_sink sink = {sink_field, sink_interim, sink_body, &r};
    tb_http_resp q;
    tb_http_resp_init(&q);
    q.head = p->head;
    q.sink = &sink;
    t->req.len = 0;
    size_t used;
    int rc = tb_http_resp_feed(&q, raw, len, &used);
    if (rc == TB_HTTP_MORE)
        rc = tb_http_resp_eof(&q); /* a body that ran to the end of the connection */
    if (rc != TB_HTTP_DONE || r.oom) {
        lua_pop(L, 3);
        snprintf(t->error, sizeof t->error, "response(): %s", r.oom ? "out of memory" : q.error);
        return -1;
    }
    lua_pushlstring(L, (const char *)t->req.p, t->req.len);
    return pcall(L, 3, 0, t->error, sizeof t->error, "response()");
}

static int hook_delay(void *ctx, uint64_t *ms)
{
    struct sthread *t = ctx;
    *ms = 0;
    if (!t->has_delay)
        return 0;
    lua_getglobal(t->L, "delay");
    if (pcall(t->L, 0, 1, t->error, sizeof t->error, "delay()") < 0)
        return -1;
    lua_Number v = lua_tonumber(t->L, -1);
    lua_pop(t->L, 1);
    *ms = v > 0 && v < 3.6e6 ? (uint64_t)v : 0;
    return 0;
}

static int hook_stopped(void *ctx)
{
    struct sthread *t = ctx;
    return __atomic_load_n(&t->stop, __ATOMIC_RELAXED);
}

/* ---- lifecycle ---- */

/* How many requests the string holds (wrk's pipelining); 0 if it is not HTTP. */
static uint32_t count_requests(const uint8_t *p, size_t n, char *why, size_t size)
{
    tb_http_req r;
    uint32_t count = 0;
    size_t off = 0;
    while (off < n) {
        tb_http_req_init(&r, n - off);
        int rc = tb_http_req_parse(&r, p + off, n - off);
        if (rc != TB_HREQ_DONE) {
            snprintf(why, size, "request %u is %s", count + 1,
                     rc == TB_HREQ_MORE ? "incomplete" : "not a valid HTTP/1.x request");
            return 0;
        }
        if (r.body_left > n - off - r.head_len) {
            snprintf(why, size, "request %u: body shorter than its Content-Length", count + 1);
            return 0;
        }
        off += r.head_len + (size_t)r.body_left;
        count++;
    }
    return count;
}

tb_script *tb_script_new(const char *file, uint32_t threads, const tb_script_target *t, tb_err *err)
{
    tb_script *s = calloc(1, sizeof *s);
    if (!s || threads == 0) {
        free(s);
        tb_errf(err, "script: out of memory");
        return NULL;
    }
    snprintf(s->addr, sizeof s->addr, "%s", t->addr ? t->addr : "");
    s->ts = calloc(threads, sizeof *s->ts);
    s->ctx = calloc(threads, sizeof *s->ctx);
    if (!s->ts || !s->ctx) {
        tb_script_free(s);
        tb_errf(err, "script: out of memory");
        return NULL;
    }
    if (!(s->L = new_state(file, t, err))) {
        tb_script_free(s);
        return NULL;
    }
    char msg[TB_ERR_MAX];
    for (uint32_t i = 0; i < threads; i++) {
        struct sthread *th = &s->ts[i];
        th->s = s;
        th->index = i;
        s->ctx[i] = th;
        s->nthreads = i + 1;
        if (!(th->L = new_state(file, t, err))) {
            tb_script_free(s);
            return NULL;
        }
        lua_getglobal(th->L, "wrk");
        push_thread(th->L, th);
        lua_setfield(th->L, -2, "thread");
        lua_pop(th->L, 1);
        /* setup(thread) in the main state, then init(args) in the thread's */
        if (is_function(s->L, "setup")) {
            lua_getglobal(s->L, "setup");
            push_thread(s->L, th);
            if (pcall(s->L, 1, 0, msg, sizeof msg, "setup()") < 0) {
                tb_errf(err, "script: %s", msg);
                tb_script_free(s);
                return NULL;
            }
        }
        lua_getglobal(th->L, "wrk");
        lua_getfield(th->L, -1, "init");
        lua_remove(th->L, -2);
        lua_createtable(th->L, t->nargs, 1);
        for (int a = 0; a < t->nargs; a++) {
            lua_pushstring(th->L, t->args[a]);
            lua_rawseti(th->L, -2, a);
        }
        if (pcall(th->L, 1, 0, msg, sizeof msg, "init()") < 0) {
            tb_errf(err, "script: %s", msg);
            tb_script_free(s);
            return NULL;
        }
        th->has_request = is_function(th->L, "request");
        th->has_response = is_function(th->L, "response");
        th->has_delay = is_function(th->L, "delay");
        if (!th->has_request) { /* wrk.request(), once */
            if (call_request(th, false, &th->stat) < 0) {
                tb_errf(err, "script: %s", th->error);
                tb_script_free(s);
                return NULL;
            }
        }
    }
    /* wrk checks thread 0's first request: the number of requests it holds */
    struct sthread *t0 = &s->ts[0];
    if (t0->has_request ? call_request(t0, true, &s->first) < 0
                        : tb_buf_append(&s->first, t0->stat.p, t0->stat.len) < 0) {
        tb_errf(err, "script: %s", t0->error[0] ? t0->error : "out of memory");
        tb_script_free(s);
        return NULL;
    }
    t0->error[0] = 0;
    if (!(s->pipeline = count_requests(s->first.p, s->first.len, msg, sizeof msg))) {
        tb_errf(err, "script: %s", msg);
        tb_script_free(s);
        return NULL;
    }
    s->hooks.ctx = s->ctx;
    s->hooks.request = hook_request;
    /* no request() anywhere and one static request for all threads (the usual case):
     * the engine sends tb_script_first_request as it is, with no call per request */
    bool same = true;
    for (uint32_t i = 0; i < s->nthreads && same; i++)
        same = !s->ts[i].has_request && s->ts[i].stat.len == s->first.len &&
               !memcmp(s->ts[i].stat.p, s->first.p, s->first.len);
    if (same)
        s->hooks.request = NULL;
    s->hooks.response = t0->has_response ? hook_response : NULL;
    s->hooks.delay_ms = t0->has_delay ? hook_delay : NULL;
    s->hooks.stopped = hook_stopped;
    return s;
}

void tb_script_free(tb_script *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->nthreads; i++) {
        if (s->ts[i].L)
            lua_close(s->ts[i].L);
        tb_buf_clear(&s->ts[i].stat);
        tb_buf_clear(&s->ts[i].req);
    }
    if (s->L)
        lua_close(s->L);
    tb_buf_clear(&s->first);
    free(s->ts);
    free(s->ctx);
    free(s);
}

const tb_load_hooks *tb_script_hooks(const tb_script *s)
{
    return &s->hooks;
}

void tb_script_first_request(const tb_script *s, const uint8_t **req, size_t *len)
{
    *req = s->first.p;
    *len = s->first.len;
}

uint32_t tb_script_pipeline(const tb_script *s)
{
    return s->pipeline;
}

const char *tb_script_error(const tb_script *s)
{
    for (uint32_t i = 0; i < s->nthreads; i++)
        if (s->ts[i].error[0])
            return s->ts[i].error;
    return "";
}

bool tb_script_has_done(const tb_script *s)
{
    return is_function(s->L, "done");
}

static void push_stats(lua_State *L, const tb_hist *h, double scale)
{
    struct stats *st = lua_newuserdatauv(L, sizeof *st, 0);
    st->h = h;
    st->scale = scale;
    luaL_setmetatable(L, "tb.stats");
}

static void set_int(lua_State *L, const char *key, uint64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, key);
}

int tb_script_done(tb_script *s, const tb_script_summary *sum, const tb_hist *latency_ns,
                   const tb_hist *rate, tb_err *err)
{
    lua_State *L = s->L;
    lua_getglobal(L, "done");
    lua_newtable(L);
    set_int(L, "duration", sum->duration_us);
    set_int(L, "requests", sum->requests);
    set_int(L, "bytes", sum->bytes);
    lua_newtable(L);
    set_int(L, "connect", sum->connect);
    set_int(L, "read", sum->read);
    set_int(L, "write", sum->write);
    set_int(L, "status", sum->status);
    set_int(L, "timeout", sum->timeout);
    lua_setfield(L, -2, "errors");
    push_stats(L, latency_ns, 1e-3);
    push_stats(L, rate, 1.0);
    char msg[TB_ERR_MAX];
    if (pcall(L, 3, 0, msg, sizeof msg, "done()") < 0)
        return tb_errf(err, "script: %s", msg);
    return 0;
}
