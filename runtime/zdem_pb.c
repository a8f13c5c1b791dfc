#include "zdem_pb.h"

zdem_status zdem_pb_skip(const uint8_t *base, const uint8_t *key_at,
                         const uint8_t **p, const uint8_t *end, uint32_t wt,
                         zdem_error *err)
{
    const uint8_t *s = *p;
    zdem_status st;
    switch (wt) {
    case ZDEM_PB_WT_VARINT: {
        uint64_t v;
        st = zdem_pb_varint(p, end, &v);
        if (st != ZDEM_OK)
            return zdem_pb_fail(err, st, base, s, "bad varint");
        return ZDEM_OK;
    }
    case ZDEM_PB_WT_I64:
        if (end - s < 8)
            return zdem_pb_fail(err, ZDEM_ERR_TRUNCATED, base, s, "fixed64 cut off");
        *p = s + 8;
        return ZDEM_OK;
    case ZDEM_PB_WT_I32:
        if (end - s < 4)
            return zdem_pb_fail(err, ZDEM_ERR_TRUNCATED, base, s, "fixed32 cut off");
        *p = s + 4;
        return ZDEM_OK;
    case ZDEM_PB_WT_LEN: {
        uint32_t n;
        st = zdem_pb_len(p, end, &n);
        if (st != ZDEM_OK)
            return zdem_pb_fail(err, st, base, s, "bad length");
        *p += n;
        return ZDEM_OK;
    }
    default:
        /* Groups (3, 4) are deprecated and unused by Valve; 6, 7 do not exist. */
        return zdem_pb_fail(err, ZDEM_ERR_WIRE_TYPE, base, key_at,
                            "unsupported wire type");
    }
}
