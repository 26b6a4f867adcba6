/* The engine's per-row hashing, in C (openodke.eval.engine.keyhash is the same in Python).
 *
 * For each fact (a decoded struct or a pydantic Fact: the same attributes) it hashes the parts
 * KeyTable.of_parts hashes:
 *   subject rest (polarity, scoped), object rest (polarity,), the predicate
 *   each end's identity name (openodke.eval.engine.fold: the key case-folded and
 *   whitespace-collapsed, its leading "Type:" dropped when it is the end's own type), its bare
 *   name (any leading "X:" dropped) and its type
 * with Python's own hash, so the two paths give the same numbers; what the diagnosis joins on
 * (the names an end goes by, polarity, verdict); and the first cited document and the number of
 * citations. A Python loop over these attributes
 * costs several microseconds a row on a million rows; this costs a fraction of one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "structmember.h" /* T_OBJECT_EX, READ_RESTRICTED */

static PyObject *s_predicate, *s_subject, *s_key, *s_type, *s_polarity, *s_identity_keys,
    *s_object_entity, *s_object_value, *s_evidence, *s_doc_id, *s_empty, *s_label, *s_aliases,
    *s_verdict, *s_qualifiers, *s_attributes, *s_span, *s_mention, *s_start, *s_end;

/* ---- Reading a field ----
 *
 * A msgspec Struct keeps each field in a slot at a fixed offset, read through a member
 * descriptor: PyObject_GetAttr finds the descriptor in the type (a dict lookup, cached) and
 * calls it, every time: a fifth of what the row checks and the columns cost (perf, 189k rows).
 * get_field() reads the slot itself
 * when the object's type reads the name through a plain object member and the generic getattr
 * (what any attribute read would do, since such a member is a data descriptor that an
 * instance's __dict__ cannot shadow); anything else (a pydantic model, a property, a custom
 * __getattribute__, an empty slot) goes through PyObject_GetAttr. Each name remembers the
 * offsets of the last WAYS types it was read from, holding a reference to each type and its
 * version tag (changed whenever the type is), so a stale offset is never used. */
enum {
    F_predicate, F_subject, F_key, F_type, F_polarity, F_identity_keys, F_object_entity,
    F_object_value, F_evidence, F_doc_id, F_label, F_aliases, F_verdict, F_qualifiers,
    F_attributes, F_span, F_mention, F_start, F_end
};

/* GET(obj, predicate) reads obj.predicate (s_predicate, its ways F_predicate) as get_field does. */
#define GET(obj, name) get_field((obj), s_##name, F_##name)

#define WAYS 4
typedef struct {
    PyTypeObject *type;
    unsigned int version;
    Py_ssize_t offset; /* -1: read it with PyObject_GetAttr */
} Way;

static Way ways[F_end + 1][WAYS];

static Py_ssize_t member_offset(PyTypeObject *type, PyObject *name) {
    if (type->tp_getattro != PyObject_GenericGetAttr) return -1;
    PyObject *descr = _PyType_Lookup(type, name); /* borrowed */
    if (descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type)) return -1;
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX || (member->flags & READ_RESTRICTED)) return -1;
    return member->offset;
}

/* obj.name (``field`` numbers the name: its ways): a new reference, or NULL. */
static PyObject *get_field(PyObject *obj, PyObject *name, int field) {
    PyTypeObject *type = Py_TYPE(obj);
    Way *w = ways[field];
    Py_ssize_t offset = -1;
    int found = 0;
    for (int i = 0; i < WAYS && !found; i++) {
        if (w[i].type == type && w[i].version == type->tp_version_tag &&
            PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
            offset = w[i].offset;
            found = 1;
        }
    }
    if (!found) {
        offset = member_offset(type, name); /* the lookup gives the type a version tag */
        if (PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
            Py_XDECREF(w[WAYS - 1].type);
            memmove(&w[1], &w[0], sizeof(Way) * (WAYS - 1));
            Py_INCREF(type);
            w[0].type = type;
            w[0].version = type->tp_version_tag;
            w[0].offset = offset;
        }
    }
    if (offset >= 0) {
        PyObject *value = *(PyObject **)((char *)obj + offset);
        if (value != NULL) return Py_NewRef(value);
    }
    return PyObject_GetAttr(obj, name);
}

/* The hashes lately written to a names dict, by their low bits: a row repeating one of them
 * (the same predicate, the same document as the row before) skips the dict. */
#define RECENT 256
typedef struct {
    Py_hash_t hash[RECENT];
    char used[RECENT];
} Recent;

/* names[h] = value unless set: the string each hash stands for. */
static int remember(PyObject *names, Py_hash_t h, PyObject *value, Recent *recent) {
    size_t slot = (size_t)h & (RECENT - 1);
    if (recent->used[slot] && recent->hash[slot] == h) return 0;
    recent->used[slot] = 1;
    recent->hash[slot] = h;
    PyObject *key = PyLong_FromSsize_t(h);
    if (key == NULL) return -1;
    int found = PyDict_Contains(names, key);
    int err = found < 0 ? -1 : (found ? 0 : PyDict_SetItem(names, key, value));
    Py_DECREF(key);
    return err;
}

static int writable(Py_buffer *view, Py_ssize_t n, Py_ssize_t width, const char *what) {
    if (view->len < n * width) {
        PyErr_Format(PyExc_ValueError, "%s holds fewer than %zd rows", what, n);
        return -1;
    }
    return 0;
}

/* hash((a, b, c, ...)) as CPython computes it (Objects/tupleobject.c, the xxHash-based tuple
 * hash of 3.8 and later), without building the tuple: most of what a row costs. The Python twin
 * hashes real tuples; a test holds the two equal. */
#define XXPRIME_1 ((Py_uhash_t)11400714785074694791ULL)
#define XXPRIME_2 ((Py_uhash_t)14029467366897019727ULL)
#define XXPRIME_5 ((Py_uhash_t)2870177450012600261ULL)
#define XXROTATE(x) ((x << 31) | (x >> 33))

static Py_hash_t tuple_hash(PyObject *items[], Py_ssize_t n) {
    Py_uhash_t acc = XXPRIME_5;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_uhash_t lane = PyObject_Hash(items[i]);
        if (lane == (Py_uhash_t)-1) return -1;
        acc += lane * XXPRIME_2;
        acc = XXROTATE(acc);
        acc *= XXPRIME_1;
    }
    acc += n ^ (XXPRIME_5 ^ 3527539UL);
    if (acc == (Py_uhash_t)-1) return 1546275796;
    return (Py_hash_t)acc;
}

/* Salts that keep a literal's node and names apart from an entity's with the same string. */
#define LITERAL_NODE ((int64_t)0x5bd1e9955bd1e995LL)
#define LITERAL_NAMES ((int64_t)0x27d4eb2f165667c5LL)

/* The columns one fact fills, by row. */
enum { SUBJECT, OBJECT, PREDICATE, SUBJECT_NODE, OBJECT_NODE, SUBJECT_TYPE, OBJECT_TYPE,
       SUBJECT_NAMES, OBJECT_NAMES, SUBJECT_BARE, OBJECT_BARE, WIDE };

/* Whitespace as str.split() sees it, for ASCII. */
static int is_space(unsigned char c) { return (c >= 9 && c <= 13) || (c >= 28 && c <= 32); }

/* hash(text[start:stop]); -1 with an error set on failure. */
static Py_hash_t part_hash(PyObject *text, Py_ssize_t start, Py_ssize_t stop) {
    PyObject *part = PyUnicode_Substring(text, start, stop);
    if (part == NULL) return -1;
    Py_hash_t h = PyObject_Hash(part);
    Py_DECREF(part);
    return h;
}

/* Fold ASCII text into out, as " ".join(text.casefold().split()) would; return its length. */
static Py_ssize_t fold_ascii(const unsigned char *s, Py_ssize_t n, unsigned char *out) {
    Py_ssize_t m = 0;
    int pending = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (is_space(c)) {
            pending = m > 0;
            continue;
        }
        if (pending) out[m++] = ' ';
        pending = 0;
        out[m++] = (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
    }
    return m;
}

/* key_parts for folded ASCII text: the hashes str would give its slices (an ASCII str hashes
 * its bytes, Objects/unicodeobject.c), with no str made. */
static void ascii_parts(const unsigned char *d, Py_ssize_t m, Py_hash_t *whole, Py_hash_t *prefix,
                        Py_hash_t *rest) {
    *whole = _Py_HashBytes(d, m);
    *prefix = -1;
    *rest = *whole;
    const unsigned char *colon = m ? memchr(d, ':', (size_t)m) : NULL;
    if (colon == NULL || colon == d) return;
    Py_ssize_t at = colon - d;
    Py_ssize_t stop = d[at - 1] == ' ' ? at - 1 : at;
    Py_ssize_t start = at + 1 < m && d[at + 1] == ' ' ? at + 2 : at + 1;
    if (stop > 0 && start < m) {
        *prefix = _Py_HashBytes(d, stop);
        *rest = _Py_HashBytes(d + start, m - start);
    }
}

/* An entity key's hashes (fold.key_parts): its folded whole, and, when it reads
 * "prefix:rest" with both non-blank, the folded prefix's and the rest's (prefix -1 when not). */
static int key_parts(PyObject *key, PyObject *fold_of, Py_hash_t *whole, Py_hash_t *prefix,
                     Py_hash_t *rest) {
    if (PyUnicode_Check(key) && PyUnicode_IS_ASCII(key)) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(key);
        unsigned char small[256];
        unsigned char *d = n <= (Py_ssize_t)sizeof(small) ? small : PyMem_Malloc((size_t)n);
        if (d == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        ascii_parts(d, fold_ascii(PyUnicode_1BYTE_DATA(key), n, d), whole, prefix, rest);
        if (d != small) PyMem_Free(d);
        return 0;
    }
    PyObject *w = PyObject_CallOneArg(fold_of, key);  /* " ".join(key.casefold().split()) */
    if (w == NULL) return -1;
    int err = -1;
    if (!PyUnicode_Check(w)) {
        PyErr_SetString(PyExc_TypeError, "fold_of must return a str");
        goto done;
    }
    if ((*whole = PyObject_Hash(w)) == -1) goto done;
    *prefix = -1;
    *rest = *whole;
    Py_ssize_t n = PyUnicode_GET_LENGTH(w);
    Py_ssize_t at = PyUnicode_FindChar(w, ':', 0, n, 1);
    if (at == -2) goto done;
    if (at > 0) {
        Py_ssize_t stop = PyUnicode_READ_CHAR(w, at - 1) == ' ' ? at - 1 : at;
        Py_ssize_t start = at + 1 < n && PyUnicode_READ_CHAR(w, at + 1) == ' ' ? at + 2 : at + 1;
        if (stop > 0 && start < n) {
            if ((*prefix = part_hash(w, 0, stop)) == -1) goto done;
            if ((*rest = part_hash(w, start, n)) == -1) goto done;
        }
    }
    err = 0;
done:
    Py_DECREF(w);
    return err;
}

/* An entity end's identity name and bare name, from its key and type. */
static int end_names(PyObject *key, PyObject *type, PyObject *fold_of, int64_t *name,
                     int64_t *bare) {
    Py_hash_t whole, prefix, rest, type_whole, unused_p, unused_r;
    if (key_parts(key, fold_of, &whole, &prefix, &rest) < 0) return -1;
    if (prefix != -1) {
        if (key_parts(type, fold_of, &type_whole, &unused_p, &unused_r) < 0) return -1;
        *name = prefix == type_whole ? rest : whole;
    } else {
        *name = whole;
    }
    *bare = rest;
    return 0;
}
enum { LITERAL, POLARITY, VERDICT, NARROW };

static const char *POLARITIES[] = {"asserted", "denied", "partial", NULL};
static const char *VERDICTS[] = {"unchecked", "supported", "contradicted", "not_found", NULL};

/* The index of a str among names (str subclasses such as StrEnum members count); -1: none. */
static int code_of(PyObject *value, const char *names[]) {
    if (!PyUnicode_Check(value)) return -1;
    for (int k = 0; names[k] != NULL; k++)
        if (PyUnicode_CompareWithASCIIString(value, names[k]) == 0) return k;
    return -1;
}

/* hash((key, type, label, aliases)): an entity's names follow from these four. */
static Py_hash_t names_hash(PyObject *entity, PyObject *key, PyObject *type) {
    PyObject *label = GET(entity, label);
    if (label == NULL) return -1;
    PyObject *aliases = GET(entity, aliases);
    if (aliases == NULL) {
        Py_DECREF(label);
        return -1;
    }
    PyObject *items[] = {key, type, label, aliases};
    Py_hash_t h = tuple_hash(items, 4);
    Py_DECREF(label);
    Py_DECREF(aliases);
    return h;
}

/* One fact's columns; returns -1 on error. */
static int fact_row(PyObject *fact, PyObject *literal_of, PyObject *scoped_of, PyObject *fold_of,
                    int64_t *wide,
                    int8_t *narrow, Py_ssize_t n, PyObject *predicates, PyObject *types,
                    Recent *recent, Recent *recent_types) {
    int err = -1;
    PyObject *pred = NULL, *subj = NULL, *skey = NULL, *stype = NULL, *pol = NULL, *ik = NULL,
             *scoped = NULL, *entity = NULL, *obj = NULL, *otype = NULL, *value = NULL,
             *verdict = NULL;
    if ((pred = GET(fact, predicate)) == NULL) goto done;
    if ((subj = GET(fact, subject)) == NULL) goto done;
    if ((skey = GET(subj, key)) == NULL) goto done;
    if ((stype = GET(subj, type)) == NULL) goto done;
    if ((pol = GET(fact, polarity)) == NULL) goto done;
    if ((verdict = GET(fact, verdict)) == NULL) goto done;
    if ((ik = GET(fact, identity_keys)) == NULL) goto done;
    int has_keys = PyObject_IsTrue(ik);
    if (has_keys < 0) goto done;
    if (has_keys) {
        if ((scoped = PyObject_CallOneArg(scoped_of, fact)) == NULL) goto done;
    } else {
        scoped = Py_NewRef(s_empty);
    }
    if ((entity = GET(fact, object_entity)) == NULL) goto done;
    int is_literal = entity == Py_None;
    if (is_literal) {
        if ((value = GET(fact, object_value)) == NULL) goto done;
        obj = PyLong_CheckExact(value) ? PyObject_Str(value) : PyObject_CallOneArg(literal_of, value);
    } else {
        obj = GET(entity, key);
    }
    if (obj == NULL) goto done;
    PyObject *subject_items[] = {pol, scoped};
    PyObject *object_items[] = {pol};
    Py_hash_t h;
    if ((h = tuple_hash(subject_items, 2)) == -1 && PyErr_Occurred()) goto done;
    wide[SUBJECT * n] = h;
    if ((h = tuple_hash(object_items, 1)) == -1 && PyErr_Occurred()) goto done;
    wide[OBJECT * n] = h;
    if ((h = PyObject_Hash(pred)) == -1 && PyErr_Occurred()) goto done;
    wide[PREDICATE * n] = h;
    if (remember(predicates, h, pred, recent) < 0) goto done;
    if (end_names(skey, stype, fold_of, &wide[SUBJECT_NODE * n], &wide[SUBJECT_BARE * n]) < 0)
        goto done;
    if ((h = PyObject_Hash(stype)) == -1 && PyErr_Occurred()) goto done;
    wide[SUBJECT_TYPE * n] = h;
    if (remember(types, h, stype, recent_types) < 0) goto done;
    if ((h = names_hash(subj, skey, stype)) == -1 && PyErr_Occurred()) goto done;
    wide[SUBJECT_NAMES * n] = h;
    if (is_literal) {
        if ((h = PyObject_Hash(obj)) == -1 && PyErr_Occurred()) goto done;
        wide[OBJECT_NODE * n] = wide[OBJECT_BARE * n] = (int64_t)h ^ LITERAL_NODE;
        /* A string read as a number: its bare name is its text, folded (a string range
           compares that). Only a number's form starts with a digit or '-'. */
        if (PyUnicode_Check(value) && PyUnicode_GET_LENGTH(obj) > 0) {
            Py_UCS4 c = PyUnicode_READ_CHAR(obj, 0);
            if ((c >= '0' && c <= '9') || c == '-') {
                PyObject *folded = PyObject_CallOneArg(fold_of, value);
                if (folded == NULL) goto done;
                h = PyObject_Hash(folded);
                Py_DECREF(folded);
                if (h == -1 && PyErr_Occurred()) goto done;
                wide[OBJECT_BARE * n] = (int64_t)h ^ LITERAL_NODE;
            }
        }
        wide[OBJECT_TYPE * n] = 0;
        PyObject *text = PyObject_Str(value);
        if (text == NULL) goto done;
        h = PyObject_Hash(text);
        Py_DECREF(text);
        if (h == -1 && PyErr_Occurred()) goto done;
        wide[OBJECT_NAMES * n] = (int64_t)h ^ LITERAL_NAMES;
    } else {
        if ((otype = GET(entity, type)) == NULL) goto done;
        if (end_names(obj, otype, fold_of, &wide[OBJECT_NODE * n], &wide[OBJECT_BARE * n]) < 0)
            goto done;
        if ((h = PyObject_Hash(otype)) == -1 && PyErr_Occurred()) goto done;
        wide[OBJECT_TYPE * n] = h;
        if (remember(types, h, otype, recent_types) < 0) goto done;
        if ((h = names_hash(entity, obj, otype)) == -1 && PyErr_Occurred()) goto done;
        wide[OBJECT_NAMES * n] = h;
    }
    narrow[LITERAL * n] = (int8_t)is_literal;
    narrow[POLARITY * n] = (int8_t)code_of(pol, POLARITIES);
    narrow[VERDICT * n] = (int8_t)code_of(verdict, VERDICTS);
    err = 0;
done:
    Py_XDECREF(pred);
    Py_XDECREF(subj);
    Py_XDECREF(skey);
    Py_XDECREF(stype);
    Py_XDECREF(pol);
    Py_XDECREF(ik);
    Py_XDECREF(scoped);
    Py_XDECREF(entity);
    Py_XDECREF(obj);
    Py_XDECREF(otype);
    Py_XDECREF(value);
    Py_XDECREF(verdict);
    return err;
}

PyDoc_STRVAR(fact_columns_doc,
             "fact_columns(facts, literal_of, scoped_of, fold_of, wide, narrow, predicates, "
             "types)\n\n"
             "Fill, one column entry per fact, the C-ordered int64 array wide (11 x n: subject "
             "rest, object rest, predicate, subject node, object node, subject type, object "
             "type, subject names, object names, subject bare, object bare) and the int8 array "
             "narrow (3 x n: literal, polarity, verdict); predicates and types map each hash to "
             "its name. fold_of folds a non-ASCII name.");

static PyObject *fact_columns(PyObject *self, PyObject *args) {
    PyObject *facts, *literal_of, *scoped_of, *fold_of, *predicates, *types;
    Py_buffer wide, narrow;
    if (!PyArg_ParseTuple(args, "O!OOOw*w*O!O!", &PyList_Type, &facts, &literal_of, &scoped_of,
                          &fold_of, &wide, &narrow, &PyDict_Type, &predicates, &PyDict_Type,
                          &types))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = PyList_GET_SIZE(facts);
    Recent recent = {{0}, {0}}, recent_types = {{0}, {0}};
    if (writable(&wide, n, 8 * WIDE, "wide") < 0 || writable(&narrow, n, NARROW, "narrow") < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (fact_row(PyList_GET_ITEM(facts, i), literal_of, scoped_of, fold_of,
                     (int64_t *)wide.buf + i,
                     (int8_t *)narrow.buf + i, n, predicates, types, &recent, &recent_types) < 0)
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&wide);
    PyBuffer_Release(&narrow);
    return result;
}

/* 1 when a str is empty or only whitespace (what str.strip() leaves empty), else 0. */
static int blank(PyObject *text) {
    if (!PyUnicode_Check(text)) return 0;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) return 0;
    return 1;
}

/* 1 when value nests dicts and lists more than room levels deep (structs._deeper), else 0. */
static int deeper(PyObject *value, int room) {
    if (PyDict_Check(value)) {
        if (room <= 0) return 1;
        PyObject *key, *item;
        Py_ssize_t pos = 0;
        while (PyDict_Next(value, &pos, &key, &item))
            if (deeper(item, room - 1)) return 1;
        return 0;
    }
    if (PyList_Check(value)) {
        if (room <= 0) return 1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++)
            if (deeper(PyList_GET_ITEM(value, i), room - 1)) return 1;
        return 0;
    }
    return 0;
}

/* 1 when owner.name holds anything and nests more than room levels deep, 0, or -1. */
static int too_deep(PyObject *owner, PyObject *name, int field, int room) {
    PyObject *value = get_field(owner, name, field);
    if (value == NULL) return -1;
    int full = PyObject_IsTrue(value);
    int deep = full > 0 ? deeper(value, room) : full;
    Py_DECREF(value);
    return deep;
}

/* 0 when evidence item's span (name: span or mention) is absent or has 0 <= start <= end, 1
   when not, -1 on error. */
static int span_out_of_order(PyObject *evidence, PyObject *name, int field) {
    PyObject *span = get_field(evidence, name, field);
    if (span == NULL) return -1;
    int bad = 0;
    if (span != Py_None) {
        PyObject *start = GET(span, start), *end = NULL;
        if (start == NULL || (end = GET(span, end)) == NULL) {
            bad = -1;
        } else {
            PyObject *zero = PyLong_FromLong(0);
            int low = zero == NULL ? -1 : PyObject_RichCompareBool(zero, start, Py_LE);
            int high = low <= 0 ? low : PyObject_RichCompareBool(start, end, Py_LE);
            Py_XDECREF(zero);
            bad = high < 0 ? -1 : !high;
        }
        Py_XDECREF(start);
        Py_XDECREF(end);
    }
    Py_DECREF(span);
    return bad;
}

/* 1 when any evidence item's span or mention is out of order, 0, or -1 on error. */
static int spans_out_of_order(PyObject *fact) {
    PyObject *evidence = GET(fact, evidence);
    if (evidence == NULL) return -1;
    PyObject *items = PySequence_Fast(evidence, "evidence is not a sequence");
    Py_DECREF(evidence);
    if (items == NULL) return -1;
    int bad = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    for (Py_ssize_t i = 0; i < n && bad == 0; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(items, i);
        bad = span_out_of_order(item, s_span, F_span);
        if (bad == 0) bad = span_out_of_order(item, s_mention, F_mention);
    }
    Py_DECREF(items);
    return bad;
}

/* One decoded row's checks (what the models refuse and msgspec's types cannot say); -1 with a
   ValueError set when it fails one. */
static int row_ok(PyObject *fact, int nesting) {
    int err = -1, deep;
    PyObject *subj = NULL, *skey = NULL, *entity = NULL, *okey = NULL, *value = NULL;
    if ((subj = GET(fact, subject)) == NULL) goto done;
    if ((skey = GET(subj, key)) == NULL) goto done;
    if ((entity = GET(fact, object_entity)) == NULL) goto done;
    if ((value = GET(fact, object_value)) == NULL) goto done;
    if ((entity == Py_None) == (value == Py_None)) {
        PyErr_SetString(PyExc_ValueError,
                        "exactly one of object_entity and object_value must be set");
        goto done;
    }
    if (entity != Py_None && (okey = GET(entity, key)) == NULL) goto done;
    if (blank(skey) || (okey != NULL && blank(okey))) {
        PyErr_SetString(PyExc_ValueError, "key is blank");
        goto done;
    }
    /* free-form values nested past the bound go to the careful reader, which refuses them */
    if ((deep = too_deep(fact, s_qualifiers, F_qualifiers, nesting - 2)) != 0) goto nested;
    if ((deep = too_deep(subj, s_attributes, F_attributes, nesting - 3)) != 0) goto nested;
    if (entity != Py_None &&
        (deep = too_deep(entity, s_attributes, F_attributes, nesting - 3)) != 0)
        goto nested;
    int order = spans_out_of_order(fact);
    if (order != 0) {
        if (order > 0) PyErr_SetString(PyExc_ValueError, "span offsets out of order");
        goto done;
    }
    err = 0;
    goto done;
nested:
    if (deep > 0) PyErr_SetString(PyExc_ValueError, "free-form values nested too deeply");
done:
    Py_XDECREF(subj);
    Py_XDECREF(skey);
    Py_XDECREF(entity);
    Py_XDECREF(okey);
    Py_XDECREF(value);
    return err;
}

PyDoc_STRVAR(check_rows_doc,
             "check_rows(facts, nesting)\n\n"
             "Raise ValueError at the first decoded fact the models would refuse: a blank "
             "entity key, both or neither of object_entity and object_value, qualifiers "
             "(attributes) nesting lists and mappings past nesting - 2 (- 3) levels, or an "
             "evidence span or mention whose offsets are not 0 <= start <= end.");

static PyObject *check_rows(PyObject *self, PyObject *args) {
    PyObject *facts;
    int nesting;
    if (!PyArg_ParseTuple(args, "O!i", &PyList_Type, &facts, &nesting)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(facts);
    for (Py_ssize_t i = 0; i < n; i++)
        if (row_ok(PyList_GET_ITEM(facts, i), nesting) < 0) return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(doc_hashes_doc,
             "doc_hashes(rows, cited, hashes, counts, names)\n\nFill the int64 buffer hashes "
             "with the hash of each row's document: its doc_id, or (cited) the doc_id of its "
             "first evidence, \"\" when it has none, counts with its number of evidence items "
             "(cited only); names maps each hash to its document.");

static PyObject *doc_hashes(PyObject *self, PyObject *args) {
    PyObject *rows, *names;
    int cited;
    Py_buffer hashes, counts;
    if (!PyArg_ParseTuple(args, "O!pw*w*O!", &PyList_Type, &rows, &cited, &hashes, &counts,
                          &PyDict_Type, &names))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = PyList_GET_SIZE(rows);
    Recent recent = {{0}, {0}};
    if (writable(&hashes, n, 8, "hashes") < 0 || (cited && writable(&counts, n, 8, "counts") < 0))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i), *doc;
        if (cited) {
            PyObject *evidence = GET(row, evidence);
            if (evidence == NULL) goto done;
            Py_ssize_t count = PyObject_Length(evidence);
            if (count < 0) {
                Py_DECREF(evidence);
                goto done;
            }
            ((int64_t *)counts.buf)[i] = count;
            if (count == 0) {
                doc = Py_NewRef(s_empty);
            } else {
                PyObject *first = PySequence_GetItem(evidence, 0);
                doc = first == NULL ? NULL : GET(first, doc_id);
                Py_XDECREF(first);
            }
            Py_DECREF(evidence);
        } else {
            doc = GET(row, doc_id);
        }
        if (doc == NULL) goto done;
        Py_hash_t h = PyObject_Hash(doc);
        int err = (h == -1 && PyErr_Occurred()) ? -1 : remember(names, h, doc, &recent);
        Py_DECREF(doc);
        if (err < 0) goto done;
        ((int64_t *)hashes.buf)[i] = h;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&hashes);
    PyBuffer_Release(&counts);
    return result;
}

PyDoc_STRVAR(line_starts_doc,
             "line_starts(block, starts) -> int\n\nWrite into the int64 buffer starts where "
             "each line of block holding more than JSON whitespace begins (as many as fit); "
             "return how many there are.");

static PyObject *line_starts(PyObject *self, PyObject *args) {
    Py_buffer block, starts;
    if (!PyArg_ParseTuple(args, "y*w*", &block, &starts)) return NULL;
    const char *data = (const char *)block.buf;
    Py_ssize_t size = block.len, room = starts.len / 8, count = 0, at = 0;
    int64_t *out = (int64_t *)starts.buf;
    while (at < size) {
        const char *stop = memchr(data + at, '\n', (size_t)(size - at));
        Py_ssize_t end = stop == NULL ? size : stop - data;
        for (Py_ssize_t k = at; k < end; k++) {
            char c = data[k];
            if (c != ' ' && c != '\t' && c != '\r') {
                if (count < room) out[count] = at;
                count++;
                break;
            }
        }
        at = end + 1;
    }
    PyBuffer_Release(&block);
    PyBuffer_Release(&starts);
    return PyLong_FromSsize_t(count);
}

PyDoc_STRVAR(cut_lines_doc,
             "cut_lines(block, starts, stops) -> bytes\n\n"
             "block[starts[k]:stops[k]] for every k (int64 buffers), each followed by a line "
             "break, in one bytes: the rows a reader wants out of a window of a file.");

static PyObject *cut_lines(PyObject *self, PyObject *args) {
    Py_buffer block, starts, stops;
    if (!PyArg_ParseTuple(args, "y*y*y*", &block, &starts, &stops)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t n = starts.len / 8, total = 0;
    const int64_t *a = starts.buf, *b = stops.buf;
    if (stops.len != starts.len) {
        PyErr_SetString(PyExc_ValueError, "starts and stops differ in length");
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (a[k] < 0 || b[k] < a[k] || b[k] > block.len) {
            PyErr_SetString(PyExc_ValueError, "a cut lies outside the block");
            goto done;
        }
        total += (Py_ssize_t)(b[k] - a[k]) + 1;
    }
    if ((out = PyBytes_FromStringAndSize(NULL, total)) == NULL) goto done;
    char *to = PyBytes_AS_STRING(out);
    for (Py_ssize_t k = 0; k < n; k++) {
        memcpy(to, (const char *)block.buf + a[k], (size_t)(b[k] - a[k]));
        to += b[k] - a[k];
        *to++ = '\n';
    }
done:
    PyBuffer_Release(&block);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&stops);
    return out;
}

/* ---- The words of a few ends, for the diagnosis's surface-form rule ----
 *
 * end_keys does what openodke.eval.diagnosis.words.py_end_keys does (names.end_names, the
 * short way of names.name_keys and sentences.name_key) for ends whose key, type and label are
 * ASCII and that have no aliases, and for ASCII names; any other end or name goes to the Python
 * fallbacks, so the two give the same. */

static int ascii_str(PyObject *s) { return PyUnicode_Check(s) && PyUnicode_IS_ASCII(s); }

/* Does s[0:n] hold a character str.strip() keeps (ASCII)? */
static int ascii_nonblank(const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (!is_space(s[i])) return 1;
    return 0;
}

static int ascii_lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

/* One ASCII entity's names appended to out; *is_short 1 when its name keys take the short way
 * (no aliases, a label, key == type + ":" + label.casefold()), 2 when that label is blank. */
static int ascii_entity(PyObject *key, PyObject *type, PyObject *label, PyObject *out,
                        int *is_short) {
    const unsigned char *k = PyUnicode_1BYTE_DATA(key), *t = PyUnicode_1BYTE_DATA(type);
    Py_ssize_t kn = PyUnicode_GET_LENGTH(key), tn = PyUnicode_GET_LENGTH(type);
    const unsigned char *colon = kn ? memchr(k, ':', (size_t)kn) : NULL;
    PyObject *second = key;
    Py_INCREF(second);
    if (colon != NULL) {
        Py_ssize_t at = colon - k;
        int same = at == tn;
        for (Py_ssize_t i = 0; same && i < at; i++) same = ascii_lower(k[i]) == ascii_lower(t[i]);
        if (same && ascii_nonblank(k + at + 1, kn - at - 1)) {
            Py_DECREF(second);
            if ((second = PyUnicode_Substring(key, at + 1, kn)) == NULL) return -1;
        }
    }
    int err = -1;
    int second_ok = ascii_nonblank(PyUnicode_1BYTE_DATA(second), PyUnicode_GET_LENGTH(second));
    int has_label = label != Py_None && PyUnicode_GET_LENGTH(label) > 0;
    *is_short = 0;
    if (has_label) {
        const unsigned char *l = PyUnicode_1BYTE_DATA(label);
        Py_ssize_t ln = PyUnicode_GET_LENGTH(label);
        if (kn == tn + 1 + ln && memcmp(k, t, (size_t)tn) == 0 && k[tn] == ':') {
            int same = 1;
            for (Py_ssize_t i = 0; same && i < ln; i++) same = k[tn + 1 + i] == ascii_lower(l[i]);
            *is_short = same ? (ascii_nonblank(l, ln) ? 1 : 2) : 0;
        }
    }
    int label_first = has_label &&
                      ascii_nonblank(PyUnicode_1BYTE_DATA(label), PyUnicode_GET_LENGTH(label));
    if (label_first) {
        int equal = PyUnicode_Compare(label, second);
        if (equal == -1 && PyErr_Occurred()) goto done;
        label_first = equal != 0;
    }
    if (label_first) {
        if (PyList_Append(out, label) < 0) goto done;
        if (second_ok && PyList_Append(out, second) < 0) goto done;
    } else if (second_ok) {
        if (PyList_Append(out, second) < 0) goto done;
    } else if (has_label) {
        if (PyList_Append(out, label) < 0) goto done;
    }
    err = 0;
done:
    Py_DECREF(second);
    return err;
}

/* The names of a fact's subject (or object: its entity, else str of its value) appended to
 * names; *is_short as ascii_entity sets it (0 for a literal). An entity with aliases or a
 * non-ASCII key, type or label is named by fallback(end) -> (names, short). */
static int end_names_into(PyObject *fact, int subject, PyObject *fallback, PyObject *names,
                          int *is_short) {
    PyObject *end, *key = NULL, *type = NULL, *label = NULL, *aliases = NULL;
    int err = -1;
    *is_short = 0;
    end = subject ? GET(fact, subject) : GET(fact, object_entity);
    if (end == NULL) return -1;
    if (!subject && end == Py_None) { /* a literal: str of its value */
        Py_DECREF(end);
        PyObject *value = GET(fact, object_value);
        if (value == NULL) return -1;
        PyObject *text = PyObject_Str(value);
        Py_DECREF(value);
        if (text == NULL) return -1;
        err = PyList_Append(names, text);
        Py_DECREF(text);
        return err;
    }
    if ((key = GET(end, key)) == NULL) goto done;
    if ((type = GET(end, type)) == NULL) goto done;
    if ((label = GET(end, label)) == NULL) goto done;
    if ((aliases = GET(end, aliases)) == NULL) goto done;
    int has_aliases = PyObject_IsTrue(aliases);
    if (has_aliases < 0) goto done;
    if (!has_aliases && ascii_str(key) && ascii_str(type) &&
        (label == Py_None || ascii_str(label))) {
        err = ascii_entity(key, type, label, names, is_short);
        goto done;
    }
    PyObject *got = PyObject_CallOneArg(fallback, end);
    if (got == NULL) goto done;
    PyObject *found = NULL;
    if (!PyArg_ParseTuple(got, "Oi", &found, is_short)) {
        Py_DECREF(got);
        goto done;
    }
    Py_ssize_t m = PySequence_Length(found);
    err = m < 0 ? -1 : 0;
    for (Py_ssize_t k = 0; err == 0 && k < m; k++) {
        PyObject *name = PySequence_GetItem(found, k);
        err = name == NULL ? -1 : PyList_Append(names, name);
        Py_XDECREF(name);
    }
    Py_DECREF(got);
done:
    Py_DECREF(end);
    Py_XDECREF(key);
    Py_XDECREF(type);
    Py_XDECREF(label);
    Py_XDECREF(aliases);
    return err;
}

/* sentences.name_key of an ASCII name: letters and digits lower-cased, every other character a
 * space, runs of spaces one, none at either end. */
static PyObject *ascii_key(PyObject *name) {
    unsigned char small[256];
    Py_ssize_t len = PyUnicode_GET_LENGTH(name), m = 0;
    const unsigned char *s = PyUnicode_1BYTE_DATA(name);
    unsigned char *d = len <= (Py_ssize_t)sizeof(small) ? small : PyMem_Malloc((size_t)len);
    if (d == NULL) return PyErr_NoMemory();
    int pending = 0;
    for (Py_ssize_t k = 0; k < len; k++) {
        unsigned char c = s[k];
        int word = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!word) {
            pending = m > 0;
            continue;
        }
        if (pending) d[m++] = ' ';
        pending = 0;
        d[m++] = (unsigned char)ascii_lower(c);
    }
    PyObject *key = PyUnicode_FromStringAndSize((const char *)d, m);
    if (d != small) PyMem_Free(d);
    return key;
}

/* Does an earlier ASCII name of names[0:r] read as names[r] (ASCII) up to letter case? Its
 * key is then the same (ascii_key lower-cases letters): already kept once, or empty. A label
 * and its case-folded key are the usual pair: the second key need not be made. */
static int same_as_earlier(PyObject *names, Py_ssize_t r) {
    PyObject *name = PyList_GET_ITEM(names, r);
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    const unsigned char *s = PyUnicode_1BYTE_DATA(name);
    for (Py_ssize_t q = 0; q < r; q++) {
        PyObject *other = PyList_GET_ITEM(names, q);
        if (!ascii_str(other) || PyUnicode_GET_LENGTH(other) != n) continue;
        const unsigned char *t = PyUnicode_1BYTE_DATA(other);
        Py_ssize_t k = 0;
        while (k < n && ascii_lower(s[k]) == ascii_lower(t[k])) k++;
        if (k == n) return 1;
    }
    return 0;
}

/* A growing array of fixed-width items, handed back as bytes. */
typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Grow;

static int grow_push(Grow *g, const void *item, Py_ssize_t width) {
    if (g->len + width > g->cap) {
        Py_ssize_t cap = g->cap ? 2 * g->cap : 4096;
        char *data = PyMem_Realloc(g->data, (size_t)cap);
        if (data == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        g->data = data;
        g->cap = cap;
    }
    memcpy(g->data + g->len, item, (size_t)width);
    g->len += width;
    return 0;
}

PyDoc_STRVAR(end_keys_doc,
             "end_keys(facts, where, subjects, fallback, key_fallback, counts) "
             "-> (keys, hashes, shared)\n\n"
             "The name keys of many ends, end after end: end i is the subject (subjects[i], "
             "int8, 1) or object (0: its entity, else str of its value) of facts[where[i]] "
             "(int64). Each of its names (names.end_names) gives its key (sentences.name_key; "
             "key_fallback(name) for a non-ASCII name); an empty key, or one the end already "
             "has, is left out. keys is every key in order, hashes (bytes of int64) their hash(), shared (bytes of int8) 1 where "
             "the key is one names.name_keys gives (all of them, or the label's alone when the "
             "end takes the short way), counts[i] (int64, written) how many are end i's. An "
             "entity with aliases or a non-ASCII key, type or label is named by "
             "fallback(end) -> (names, short).");

static PyObject *end_keys(PyObject *self, PyObject *args) {
    PyObject *facts, *fallback, *key_fallback;
    Py_buffer where, subjects, counts;
    if (!PyArg_ParseTuple(args, "O!y*y*OOw*", &PyList_Type, &facts, &where, &subjects, &fallback,
                          &key_fallback, &counts))
        return NULL;
    Py_ssize_t n = where.len / 8, total = PyList_GET_SIZE(facts);
    PyObject *keys = NULL, *names = NULL, *result = NULL;
    Grow hashes = {NULL, 0, 0}, shared = {NULL, 0, 0};
    if (writable(&subjects, n, 1, "subjects") < 0 || writable(&counts, n, 8, "counts") < 0)
        goto fail;
    if ((keys = PyList_New(0)) == NULL || (names = PyList_New(0)) == NULL) goto fail;
    const int64_t *at = where.buf;
    const int8_t *subject = subjects.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (at[i] < 0 || at[i] >= total) {
            PyErr_SetString(PyExc_IndexError, "where names no fact");
            goto fail;
        }
        int is_short = 0;
        if (PyList_SetSlice(names, 0, PyList_GET_SIZE(names), NULL) < 0) goto fail;
        if (end_names_into(PyList_GET_ITEM(facts, at[i]), subject[i], fallback, names,
                           &is_short) < 0)
            goto fail;
        int64_t count = 0;
        for (Py_ssize_t r = 0; r < PyList_GET_SIZE(names); r++) {
            PyObject *name = PyList_GET_ITEM(names, r);
            if (r > 0 && ascii_str(name) && same_as_earlier(names, r)) continue;
            PyObject *key = ascii_str(name) ? ascii_key(name)
                                            : PyObject_CallOneArg(key_fallback, name);
            if (key == NULL) goto fail;
            if (!PyUnicode_Check(key)) {
                Py_DECREF(key);
                PyErr_SetString(PyExc_TypeError, "a name key must be a str");
                goto fail;
            }
            if (PyUnicode_GET_LENGTH(key) == 0) { /* no letter, no key */
                Py_DECREF(key);
                continue;
            }
            int64_t h = (int64_t)PyObject_Hash(key);
            if (h == -1 && PyErr_Occurred()) {
                Py_DECREF(key);
                goto fail;
            }
            /* a key the end already has (a label and its key read alike) is kept once */
            int seen = 0;
            Py_ssize_t mine = PyList_GET_SIZE(keys) - (Py_ssize_t)count;
            for (int64_t k = 0; !seen && k < count; k++) {
                if (((int64_t *)hashes.data)[mine + k] != h) continue;
                seen = PyUnicode_Compare(PyList_GET_ITEM(keys, mine + k), key) == 0;
                if (!seen && PyErr_Occurred()) {
                    Py_DECREF(key);
                    goto fail;
                }
            }
            if (seen) {
                Py_DECREF(key);
                continue;
            }
            int8_t one = is_short == 0 || (is_short == 1 && r == 0);
            int err = PyList_Append(keys, key);
            Py_DECREF(key);
            if (err < 0 || grow_push(&hashes, &h, 8) < 0 || grow_push(&shared, &one, 1) < 0)
                goto fail;
            count++;
        }
        ((int64_t *)counts.buf)[i] = count;
    }
    PyObject *hash_bytes = PyBytes_FromStringAndSize(hashes.data, hashes.len);
    PyObject *shared_bytes = hash_bytes ? PyBytes_FromStringAndSize(shared.data, shared.len)
                                        : NULL;
    if (shared_bytes != NULL) result = PyTuple_Pack(3, keys, hash_bytes, shared_bytes);
    Py_XDECREF(hash_bytes);
    Py_XDECREF(shared_bytes);
fail:
    Py_XDECREF(keys);
    Py_XDECREF(names);
    PyMem_Free(hashes.data);
    PyMem_Free(shared.data);
    PyBuffer_Release(&where);
    PyBuffer_Release(&subjects);
    PyBuffer_Release(&counts);
    return result;
}

/* Is needle within hay as whole words: f" {needle} " in f" {hay} "? */
static int within_words(PyObject *needle, PyObject *hay) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(needle), h = PyUnicode_GET_LENGTH(hay);
    int nk = PyUnicode_KIND(needle), hk = PyUnicode_KIND(hay);
    const void *nd = PyUnicode_DATA(needle), *hd = PyUnicode_DATA(hay);
    if (n > h) return 0;
    for (Py_ssize_t at = 0; at + n <= h; at++) {
        if (at > 0 && PyUnicode_READ(hk, hd, at - 1) != ' ') continue;
        if (at + n < h && PyUnicode_READ(hk, hd, at + n) != ' ') continue;
        Py_ssize_t k = 0;
        while (k < n && PyUnicode_READ(nk, nd, k) == PyUnicode_READ(hk, hd, at + k)) k++;
        if (k == n) return 1;
    }
    return 0;
}

PyDoc_STRVAR(within_doc,
             "within(xs, ys, out)\n\n"
             "out[k] (int8) = 1 when xs[k] is within ys[k] as whole words, or ys[k] within "
             "xs[k]: f\" {x} \" in f\" {y} \" or the other way round.");

static PyObject *within(PyObject *self, PyObject *args) {
    PyObject *xs, *ys;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "O!O!w*", &PyList_Type, &xs, &PyList_Type, &ys, &out))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(xs);
    PyObject *result = NULL;
    if (PyList_GET_SIZE(ys) != n) {
        PyErr_SetString(PyExc_ValueError, "xs and ys differ in length");
        goto done;
    }
    if (writable(&out, n, 1, "out") < 0) goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyList_GET_ITEM(xs, k), *y = PyList_GET_ITEM(ys, k);
        if (!PyUnicode_Check(x) || !PyUnicode_Check(y)) {
            PyErr_SetString(PyExc_TypeError, "within compares str");
            goto done;
        }
        ((int8_t *)out.buf)[k] = (int8_t)(within_words(x, y) || within_words(y, x));
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"line_starts", line_starts, METH_VARARGS, line_starts_doc},
    {"fact_columns", fact_columns, METH_VARARGS, fact_columns_doc},
    {"check_rows", check_rows, METH_VARARGS, check_rows_doc},
    {"doc_hashes", doc_hashes, METH_VARARGS, doc_hashes_doc},
    {"cut_lines", cut_lines, METH_VARARGS, cut_lines_doc},
    {"end_keys", end_keys, METH_VARARGS, end_keys_doc},
    {"within", within, METH_VARARGS, within_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_keyhash",
                                    "The fast loader's per-row hashing, in C.", -1, methods};

PyMODINIT_FUNC PyInit__keyhash(void) {
#define INTERN(var, text) \
    if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL;
    INTERN(s_predicate, "predicate");
    INTERN(s_subject, "subject");
    INTERN(s_key, "key");
    INTERN(s_type, "type");
    INTERN(s_polarity, "polarity");
    INTERN(s_identity_keys, "identity_keys");
    INTERN(s_object_entity, "object_entity");
    INTERN(s_object_value, "object_value");
    INTERN(s_evidence, "evidence");
    INTERN(s_doc_id, "doc_id");
    INTERN(s_empty, "");
    INTERN(s_label, "label");
    INTERN(s_aliases, "aliases");
    INTERN(s_verdict, "verdict");
    INTERN(s_qualifiers, "qualifiers");
    INTERN(s_attributes, "attributes");
    INTERN(s_span, "span");
    INTERN(s_mention, "mention");
    INTERN(s_start, "start");
    INTERN(s_end, "end");
#undef INTERN
    return PyModule_Create(&module);
}
