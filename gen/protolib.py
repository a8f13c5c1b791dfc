"""Schema loading shared by the Source 2 generator and its test generator.

Reads schema/<layer>/*.proto through `protoc --descriptor_set_out` (so the
.proto grammar is protoc's, not ours), nanopb-style *.options files and the
id tables in ids/*.tsv, and returns plain Python objects. Everything is
ordered deterministically (file names sorted, declaration order kept).
"""
import json
import os
import subprocess
import sys
import tempfile

# FieldDescriptorProto.Type numbers -> our kind names.
TYPE_NAMES = {
    1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32",
    6: "fixed64", 7: "fixed32", 8: "bool", 9: "string", 10: "group",
    11: "message", 12: "bytes", 13: "uint32", 14: "enum", 15: "sfixed32",
    16: "sfixed64", 17: "sint32", 18: "sint64",
}
VARINT_KINDS = ("int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool")
I32_KINDS = ("fixed32", "sfixed32", "float")
I64_KINDS = ("fixed64", "sfixed64", "double")
LEN_KINDS = ("string", "bytes", "message")


class SchemaError(Exception):
    pass


class Field(object):
    def __init__(self, name, number, kind, repeated, type_name, packed):
        self.name = name
        self.number = number
        self.kind = kind            # one of TYPE_NAMES values (enum/group rejected)
        self.repeated = repeated
        self.type_name = type_name  # full name of the message type, or None
        self.packed = packed
        self.max_count = None       # from .options
        self.msg = None             # resolved Message for kind == "message"

    @property
    def wire_type(self):
        if self.kind in VARINT_KINDS:
            return 0
        if self.kind in I64_KINDS:
            return 1
        if self.kind in I32_KINDS:
            return 5
        return 2

    @property
    def scalar(self):
        return self.kind not in LEN_KINDS


class Message(object):
    def __init__(self, full_name, file_name):
        self.full_name = full_name              # "CGameInfo.CDotaGameInfo"
        self.cname = full_name.replace(".", "_")  # "CGameInfo_CDotaGameInfo"
        self.file_name = file_name
        self.fields = []                        # sorted by number
        self.reflect = False                    # .options "reflect": field table
        self.encode = False                     # .options "encode": an encoder too


class Schema(object):
    def __init__(self):
        self.messages = []      # declaration order
        self.by_name = {}
        self.id_tables = []     # IdTable, file order
        self.games = []         # (game, [table names]) from ids/games.tsv

    def table(self, name):
        for t in self.id_tables:
            if t.name == name:
                return t
        raise SchemaError("no id table %s" % name)


class IdTable(object):
    def __init__(self, name, enum_name):
        self.name = name            # file stem, e.g. "svc"
        self.enum_name = enum_name  # e.g. "SVC_Messages"
        self.rows = []              # (id name, number, message name or None)


# ----------------------------------------------------------------- protoc

_DUMP = r'''
import json, sys
from google.protobuf import descriptor_pb2
fds = descriptor_pb2.FileDescriptorSet()
fds.ParseFromString(open(sys.argv[1], "rb").read())
def msg(m):
    return {"name": m.name,
            "fields": [{"name": f.name, "number": f.number, "type": f.type,
                        "label": f.label, "type_name": f.type_name,
                        "packed": f.options.packed if f.HasField("options") else False,
                        "has_default": f.HasField("default_value"),
                        "oneof": f.HasField("oneof_index")}
                       for f in m.field],
            "nested": [msg(n) for n in m.nested_type]}
print(json.dumps([{"name": f.name, "messages": [msg(m) for m in f.message_type]}
                  for f in fds.file]))
'''


def _descriptor_json(path):
    """FileDescriptorSet at path as plain data. Uses Debian's python (which
    has python3-protobuf) when the running interpreter lacks it."""
    try:
        import google.protobuf  # noqa: F401
        exe = sys.executable
    except ImportError:
        exe = "/usr/bin/python3"
    out = subprocess.run([exe, "-c", _DUMP, path], check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out.decode("utf-8"))


def _run_protoc(schema_dir, protos):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "set.pb")
        cmd = ["protoc", "-I", schema_dir, "--descriptor_set_out=" + out]
        cmd += protos
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise SchemaError("protoc failed:\n" + r.stderr.decode("utf-8", "replace"))
        return _descriptor_json(out)


# ----------------------------------------------------------------- loading

def load(schema_dir):
    """Loads schema_dir (e.g. schema/source2) into a Schema."""
    protos = sorted(f for f in os.listdir(schema_dir) if f.endswith(".proto"))
    if not protos:
        raise SchemaError("no .proto files in " + schema_dir)
    files = _run_protoc(schema_dir, protos)
    s = Schema()

    def add(m, prefix, file_name):
        full = prefix + m["name"]
        msg = Message(full, file_name)
        if full in s.by_name:
            raise SchemaError("duplicate message " + full)
        s.by_name[full] = msg
        s.messages.append(msg)
        for f in m["fields"]:
            kind = TYPE_NAMES[f["type"]]
            if kind in ("group", "enum"):
                raise SchemaError("%s.%s: %s fields are not supported (use int32)"
                                  % (full, f["name"], kind))
            if f["has_default"] or f["oneof"]:
                raise SchemaError("%s.%s: defaults and oneofs are not supported"
                                  % (full, f["name"]))
            if f["label"] == 2:
                raise SchemaError("%s.%s: declare it optional" % (full, f["name"]))
            msg.fields.append(Field(f["name"], f["number"], kind, f["label"] == 3,
                                    f["type_name"].lstrip(".") or None, f["packed"]))
        msg.fields.sort(key=lambda x: x.number)
        for n in m["nested"]:
            add(n, full + ".", file_name)

    for f in files:
        for m in f["messages"]:
            add(m, "", f["name"])
    for m in s.messages:
        for f in m.fields:
            if f.kind == "message":
                f.msg = s.by_name[f.type_name]
    _check_acyclic(s)
    _load_options(s, schema_dir)
    _load_ids(s, os.path.join(schema_dir, "ids"))
    return s


def _check_acyclic(s):
    """Recursive messages would make decode depth input-controlled; the
    schemas here have none, and the generator relies on that bound."""
    state = {}

    def visit(m, path):
        if state.get(m.full_name) == 1:
            raise SchemaError("recursive message: " + " -> ".join(path + [m.full_name]))
        if state.get(m.full_name) == 2:
            return
        state[m.full_name] = 1
        for f in m.fields:
            if f.msg:
                visit(f.msg, path + [m.full_name])
        state[m.full_name] = 2

    for m in s.messages:
        visit(m, [])


def depth(m):
    """Nesting depth of message m (1 = no submessages)."""
    return 1 + max([depth(f.msg) for f in m.fields if f.msg] or [0])


def _load_options(s, schema_dir):
    for name in sorted(os.listdir(schema_dir)):
        if not name.endswith(".options"):
            continue
        with open(os.path.join(schema_dir, name), encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                parts = line.split()
                target, opts = parts[0], parts[1:]
                if target in s.by_name:  # a message's own options
                    for o in opts:
                        if o == "reflect:true":
                            s.by_name[target].reflect = True
                        elif o == "encode:true":
                            s.by_name[target].encode = True
                        else:
                            raise SchemaError("%s:%d: unknown message option %s" % (name, lineno, o))
                    continue
                mname, _, fname = target.rpartition(".")
                m = s.by_name.get(mname)
                f = [x for x in m.fields if x.name == fname] if m else []
                if not f:
                    raise SchemaError("%s:%d: no field %s" % (name, lineno, target))
                for o in opts:
                    k, _, v = o.partition(":")
                    if k == "max_count":
                        if not f[0].repeated or not f[0].scalar:
                            raise SchemaError("%s:%d: max_count needs a repeated scalar"
                                              % (name, lineno))
                        f[0].max_count = int(v)
                    else:
                        raise SchemaError("%s:%d: unknown option %s" % (name, lineno, k))


def _load_ids(s, ids_dir):
    for name in sorted(os.listdir(ids_dir)):
        if not name.endswith(".tsv") or name == "games.tsv":
            continue
        t = IdTable(name[:-4], None)
        with open(os.path.join(ids_dir, name), encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                if line.startswith("@enum "):
                    t.enum_name = line.split()[1]
                    continue
                cols = line.split("\t")
                if len(cols) < 2 or len(cols) > 3:
                    raise SchemaError("%s:%d: want NAME<TAB>ID[<TAB>MESSAGE]" % (name, lineno))
                msg = cols[2] if len(cols) == 3 and cols[2] else None
                if msg and msg not in s.by_name:
                    raise SchemaError("%s:%d: unknown message %s" % (name, lineno, msg))
                t.rows.append((cols[0], int(cols[1]), msg))
        if not t.enum_name:
            raise SchemaError(name + ": missing @enum line")
        s.id_tables.append(t)
    with open(os.path.join(ids_dir, "games.tsv"), encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.split()
            for t in cols[1:]:
                s.table(t)
            s.games.append((cols[0], cols[1:]))


# ----------------------------------------------------------------- C helpers

C_TYPES = {
    "int32": "int32_t", "sint32": "int32_t", "sfixed32": "int32_t",
    "uint32": "uint32_t", "fixed32": "uint32_t",
    "int64": "int64_t", "sint64": "int64_t", "sfixed64": "int64_t",
    "uint64": "uint64_t", "fixed64": "uint64_t",
    "bool": "uint8_t", "float": "float", "double": "double",
}
C_SIZES = {"int32_t": 4, "uint32_t": 4, "int64_t": 8, "uint64_t": 8,
           "uint8_t": 1, "float": 4, "double": 8}


def topo_order(s):
    """Messages ordered so that every submessage type comes first (C needs
    complete types for embedded members); otherwise declaration order."""
    done, order = set(), []

    def visit(m):
        if m.full_name in done:
            return
        done.add(m.full_name)
        for f in m.fields:
            if f.msg:
                visit(f.msg)
        order.append(m)

    for m in s.messages:
        visit(m)
    return order
