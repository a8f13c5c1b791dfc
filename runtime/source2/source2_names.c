/* Source 2 names a caller may ask for: classes, their property names (as
 * the serializers define them), event names; and, for one that is not
 * there, the message naming the closest ones (zdem_near). */
#include "source2_state_int.h"
#include "zdem_near.h"

/* Names longer than this are not listed (none in the corpus comes near). */
#define S2N_NAME_MAX 255u
/* Elements listed for a fixed array: any bound the corpus has (at most a
 * few hundred); an unknown or larger bound lists element 0 only. */
#define S2N_ARRAY_MAX 1024u
/* Names listed per class: far above any real class (a few thousand), a
 * bound for a crafted serializer graph. */
#define S2N_NAMES_MAX (1u << 20)

uint32_t zdem_s2_class_id_limit(const zdem_s2_state *s)
{
    return s->nclasses;
}

int32_t zdem_s2_class_find(const zdem_s2_state *s, const char *name, size_t len)
{
    uint32_t i;
    for (i = 0; i < s->nclasses; i++) {
        const s2_class *c = &s->classes[i];
        if (c->name && c->name_len == len && memcmp(s->base + c->name, name, len) == 0)
            return (int32_t)i;
    }
    return -1;
}

size_t zdem_s2_class_message(const zdem_s2_state *s, const char *bad, char *buf, size_t cap)
{
    zdem_near nr;
    uint32_t i;
    zdem_near_init(&nr, bad, strlen(bad));
    for (i = 0; i < s->nclasses; i++)
        if (s->classes[i].name)
            zdem_near_offer(&nr, (const char *)s->base + s->classes[i].name, s->classes[i].name_len);
    return zdem_near_message(&nr, "class", buf, cap);
}

/* ---- property names ------------------------------------------------------- */

typedef struct s2n_walk {
    const zdem_s2_state *s;
    zdem_s2_name_fn fn;
    void *user;
    char buf[S2N_NAME_MAX + 1];
    uint32_t names;
    int stop;
} s2n_walk;

static void s2n_emit(s2n_walk *w, size_t len, const s2_field *f)
{
    if (w->stop)
        return;
    if (++w->names > S2N_NAMES_MAX || w->fn(w->user, w->buf, len, (const char *)w->s->base + f->type, f->type_len))
        w->stop = 1;
}

/* buf[0..at) + sep + text; 0 when it does not fit. */
static size_t s2n_append(s2n_walk *w, size_t at, const char *text, size_t n)
{
    if (at + 1u + n > S2N_NAME_MAX)
        return 0;
    if (at)
        w->buf[at++] = '.';
    memcpy(w->buf + at, text, n);
    w->buf[at + n] = 0;
    return at + n;
}

static size_t s2n_index(s2n_walk *w, size_t at, uint32_t k)
{
    char d[12];
    size_t n = 0, i;
    char r[12];
    do {
        d[n++] = (char)('0' + k % 10u);
        k /= 10u;
    } while (k);
    for (i = 0; i < n; i++)
        r[i] = d[n - 1u - i];
    return s2n_append(w, at, r, n);
}

static unsigned s2n_components(const s2_field *f)
{
    switch (f->fd.dec) {
    case ZDEM_S2_DEC_VECTOR2: return 2;
    case ZDEM_S2_DEC_VECTOR3: return 3;
    case ZDEM_S2_DEC_QANGLE: return 3;
    case ZDEM_S2_DEC_VECTOR4: return 4;
    default: return 0;
    }
}

static void s2n_ser(s2n_walk *w, int32_t ser, size_t at, unsigned depth)
{
    const zdem_s2_state *s = w->s;
    const uint32_t *idx;
    uint32_t k, i;
    if (ser < 0 || (uint32_t)ser >= s->nsers || depth >= ZDEM_S2_FP_MAX_DEPTH)
        return;
    idx = (const uint32_t *)(s->base + s->sers[ser].fields);
    for (k = 0; k < s->sers[ser].nfields && !w->stop; k++) {
        const s2_field *f;
        size_t n, e;
        if (idx[k] >= s->nfields)
            continue;
        f = &s->fields[idx[k]];
        if (!(n = s2n_append(w, at, (const char *)s->base + f->name, f->name_len)))
            continue;
        switch (f->model) {
        case S2_M_SIMPLE: {
            unsigned c = s2n_components(f);
            s2n_emit(w, n, f);
            for (i = 0; i < c; i++) /* NAME.N: one component of a vector */
                if ((e = s2n_index(w, n, i)) != 0)
                    s2n_emit(w, e, f);
            break;
        }
        case S2_M_FIXED_ARRAY: {
            uint32_t cnt = f->count && f->count <= S2N_ARRAY_MAX ? f->count : 1u;
            for (i = 0; i < cnt && !w->stop; i++)
                if ((e = s2n_index(w, n, i)) != 0)
                    s2n_emit(w, e, f);
            break;
        }
        case S2_M_VAR_ARRAY: /* the count, and element 0 (any index reads) */
            s2n_emit(w, n, f);
            if ((e = s2n_index(w, n, 0)) != 0)
                s2n_emit(w, e, f);
            break;
        case S2_M_FIXED_TABLE: /* its presence (a pointer, a component), then its fields */
            s2n_emit(w, n, f);
            s2n_ser(w, f->ser, n, depth + 1u);
            break;
        case S2_M_VAR_TABLE:
            s2n_emit(w, n, f);
            if ((e = s2n_index(w, n, 0)) != 0)
                s2n_ser(w, f->ser, e, depth + 2u);
            break;
        default:
            break;
        }
        w->buf[at] = 0;
    }
}

int zdem_s2_class_prop_names(const zdem_s2_state *s, int32_t class_id, zdem_s2_name_fn fn,
                             void *user)
{
    s2n_walk w;
    if (class_id < 0 || (uint32_t)class_id >= s->nclasses || s->classes[class_id].ser < 0)
        return 0;
    w.s = s;
    w.fn = fn;
    w.user = user;
    w.buf[0] = 0;
    w.names = 0;
    w.stop = 0;
    s2n_ser(&w, s->classes[class_id].ser, 0, 0);
    return w.names > S2N_NAMES_MAX ? -1 : w.stop ? 1 : 0;
}

/* ---- event names ------------------------------------------------------------ */

const char *zdem_s2_event_descriptor_name(const zdem_s2_state *s, uint32_t i, uint32_t *len)
{
    if (i >= s->nevd || !s->evd[i].name)
        return 0;
    if (len)
        *len = s->evd[i].name_len;
    return (const char *)s->base + s->evd[i].name;
}

/* The types a name may also be (every event of that type). */
static const char *const s2n_types[] = {"game_event", "chat", "combat_log"};

static int s2n_event_known(const zdem_s2_state *s, const char *name, size_t len)
{
    uint32_t i, n;
    const char *e;
    for (i = 0; i < sizeof s2n_types / sizeof s2n_types[0]; i++)
        if (strlen(s2n_types[i]) == len && memcmp(s2n_types[i], name, len) == 0)
            return 1;
    for (i = 0; (e = zdem_s2_event_fixed_name(i)) != 0; i++)
        if (strlen(e) == len && memcmp(e, name, len) == 0)
            return 1;
    for (i = 0; i < s->nevd; i++)
        if ((e = zdem_s2_event_descriptor_name(s, i, &n)) != 0 && n == len && memcmp(e, name, len) == 0)
            return 1;
    return 0;
}

int32_t zdem_s2_event_names_check(const zdem_s2_state *s, const char *const *names, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        if (!s2n_event_known(s, names[i], strlen(names[i])))
            return (int32_t)i;
    return -1;
}

size_t zdem_s2_event_name_message(const zdem_s2_state *s, const char *bad, char *buf, size_t cap)
{
    zdem_near nr;
    uint32_t i, n;
    const char *e;
    zdem_near_init(&nr, bad, strlen(bad));
    for (i = 0; i < s->nevd; i++)
        if ((e = zdem_s2_event_descriptor_name(s, i, &n)) != 0)
            zdem_near_offer(&nr, e, n);
    for (i = 0; (e = zdem_s2_event_fixed_name(i)) != 0; i++)
        zdem_near_offer(&nr, e, strlen(e));
    for (i = 0; i < sizeof s2n_types / sizeof s2n_types[0]; i++)
        zdem_near_offer(&nr, s2n_types[i], strlen(s2n_types[i]));
    return zdem_near_message(&nr, "event", buf, cap);
}
