/* libFuzzer target: serializers by (name symbol, version) and by name, and
 * classes by name (sorted indexes, runtime/source2/source2_serializers.c),
 * fed adversarial key sets: up to 64 serializers whose names and versions
 * repeat (the same string under several symbols too), nested-serializer
 * references to any (symbol, version), and up to 64 classes with repeated
 * ids and names, from the input, in a CDemoSendTables and a
 * CDemoClassInfo. A nested reference must resolve to the first serializer
 * with that symbol and version (or none); a class to the serializer of its
 * name with the highest version, the first of those (or none); a class id
 * sent twice keeps the last.
 * Input: u8 count of serializers, then per serializer u8 name symbol,
 * u8 version, u8 reference (bit 7: a nested reference to symbol bits 0..3
 * and version bits 4..5); u8 count of classes, then per class u8 id, u8
 * name. */
#define FK_MAX_INPUT 1024u
#include "fuzz_source2_keys.h"

#define MAXS 64u
#define NSYM 10u /* symbols 2..11 are names, over a 4-letter alphabet */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Symbol strings: "uint32", "m_v", "CNested*", then names; names repeat
 * under different symbols (C0 twice, C1 twice, ...). */
static const char *const symbols[3 + NSYM] = {
    "uint32", "m_v", "CNested*", "C0", "C1", "C2", "C3", "C0", "C1", "C2", "C3", "C4", ""};

static int32_t sym_of(unsigned b) { return b == 255u ? 1000 : (int32_t)(3u + b % NSYM); }

static const char *ser_name(int32_t sym)
{
    return sym >= 0 && sym < (int32_t)(3u + NSYM) ? symbols[sym] : "";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fk_pb flat, tmp, send, ci;
    fk_in in;
    zdem_s2_state *s;
    zdem_error err;
    int32_t sname[MAXS], sver[MAXS], rsym[MAXS], rver[MAXS];
    int32_t cls_ser[64], cls_seen[64];
    unsigned nser, ncls, i, j;
    fk_in_init(&in, data, size);
    if (!(s = fk_s2_state(1, NULL, NULL)))
        return 0;
    nser = 1u + fk_u8(&in) % MAXS;
    flat.n = 0;
    for (i = 0; i < nser; i++) {
        unsigned r;
        sname[i] = sym_of(fk_u8(&in));
        sver[i] = (int32_t)(fk_u8(&in) % 4u);
        r = fk_u8(&in);
        rsym[i] = r & 0x80u ? (int32_t)(3u + (r & 15u) % NSYM) : -1;
        rver[i] = (int32_t)((r >> 4) & 3u);
        tmp.n = 0;
        fk_pb_int(&tmp, 1, sname[i]);
        fk_pb_int(&tmp, 2, sver[i]);
        fk_pb_int(&tmp, 3, i); /* its one field */
        fk_pb_bytes(&flat, 1, tmp.buf, tmp.n);
    }
    for (i = 0; i < 3u + NSYM; i++)
        fk_pb_bytes(&flat, 2, symbols[i], strlen(symbols[i]));
    for (i = 0; i < nser; i++) {
        tmp.n = 0;
        fk_pb_int(&tmp, 1, rsym[i] >= 0 ? 2 : 0); /* "CNested*" or "uint32" */
        fk_pb_int(&tmp, 2, 1);
        if (rsym[i] >= 0) {
            fk_pb_int(&tmp, 7, rsym[i]);
            fk_pb_int(&tmp, 8, rver[i]);
        }
        fk_pb_bytes(&flat, 3, tmp.buf, tmp.n);
    }
    /* CDemoSendTables.data: a varint length, then the message */
    tmp.n = 0;
    fk_pb_varint(&tmp, flat.n);
    memcpy(tmp.buf + tmp.n, flat.buf, flat.n);
    tmp.n += flat.n;
    send.n = 0;
    fk_pb_bytes(&send, 1, tmp.buf, tmp.n);
    zdem_error_clear(&err);
    FK_CHECK(zdem_s2_ser_load(s, send.buf, send.n, &err) == ZDEM_OK, "send tables", nser, err.code);
    FK_CHECK(s->nsers == nser && s->nfields == nser, "serializers loaded", s->nsers, nser);
    /* nested references: the first serializer with that symbol and version */
    for (i = 0; i < nser; i++) {
        int32_t want = -1;
        if (rsym[i] >= 0)
            for (j = 0; j < nser && want < 0; j++)
                if (sname[j] == rsym[i] && sver[j] == rver[i])
                    want = (int32_t)j;
        FK_CHECK(s->fields[i].ser == want, "nested serializer", i, (uint32_t)s->fields[i].ser);
    }
    /* classes */
    ncls = fk_u8(&in) % 64u;
    ci.n = 0;
    for (i = 0; i < 64; i++)
        cls_seen[i] = 0;
    for (i = 0; i < ncls; i++) {
        unsigned id = fk_u8(&in) % 48u, nb = fk_u8(&in);
        const char *name = nb == 255u ? "" : symbols[3u + nb % NSYM];
        int32_t want = -1;
        for (j = 0; j < nser; j++) {
            if (strcmp(ser_name(sname[j]), name) != 0)
                continue;
            if (want < 0 || sver[j] > sver[want])
                want = (int32_t)j;
        }
        cls_ser[id] = want;
        cls_seen[id] = 1;
        tmp.n = 0;
        fk_pb_int(&tmp, 1, id);
        fk_pb_bytes(&tmp, 2, name, strlen(name));
        fk_pb_bytes(&ci, 1, tmp.buf, tmp.n);
    }
    zdem_error_clear(&err);
    FK_CHECK(zdem_s2_classinfo(s, ci.buf, ci.n, &err) == ZDEM_OK, "class info", ncls, err.code);
    for (i = 0; i < 48; i++)
        if (cls_seen[i])
            FK_CHECK(i < s->nclasses && s->classes[i].ser == cls_ser[i], "class serializer", i,
                     (uint32_t)s->classes[i].ser);
    return 0;
}
