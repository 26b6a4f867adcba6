/* The fast loader's per-row hashing, in C (openodke.eval.keyhash is the same in Python).
 *
 * For each decoded fact it hashes the tuples KeyTable.of_parts hashes:
 *   subject group (predicate, subject.key, subject.type, polarity, scoped)
 *   object group  (predicate, object, literal, polarity)
 * with the very tuples and Python's own hash, so the two paths give the same numbers; and
 * the first cited document and the number of citations. A Python loop over these attributes
 * costs several microseconds a row on a million rows; this costs a fraction of one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static PyObject *s_predicate, *s_subject, *s_key, *s_type, *s_polarity, *s_identity_keys,
    *s_object_entity, *s_object_value, *s_evidence, *s_doc_id, *s_empty;

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

/* hash of (a, b, c, d[, e]) as Python computes it. */
static Py_hash_t tuple_hash(PyObject *items[], Py_ssize_t n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(items[i]);
        PyTuple_SET_ITEM(t, i, items[i]);
    }
    Py_hash_t h = PyObject_Hash(t);
    Py_DECREF(t);
    return h;
}

/* One fact's parts; returns -1 on error. */
static int fact_row(PyObject *fact, PyObject *literal_of, PyObject *scoped_of, int64_t *subject,
                    int64_t *object, int64_t *predicate, uint8_t *literal, PyObject *predicates,
                    Recent *recent) {
    int err = -1;
    PyObject *pred = NULL, *subj = NULL, *skey = NULL, *stype = NULL, *pol = NULL, *ik = NULL,
             *scoped = NULL, *entity = NULL, *obj = NULL;
    if ((pred = PyObject_GetAttr(fact, s_predicate)) == NULL) goto done;
    if ((subj = PyObject_GetAttr(fact, s_subject)) == NULL) goto done;
    if ((skey = PyObject_GetAttr(subj, s_key)) == NULL) goto done;
    if ((stype = PyObject_GetAttr(subj, s_type)) == NULL) goto done;
    if ((pol = PyObject_GetAttr(fact, s_polarity)) == NULL) goto done;
    if ((ik = PyObject_GetAttr(fact, s_identity_keys)) == NULL) goto done;
    int has_keys = PyObject_IsTrue(ik);
    if (has_keys < 0) goto done;
    if (has_keys) {
        if ((scoped = PyObject_CallOneArg(scoped_of, fact)) == NULL) goto done;
    } else {
        scoped = Py_NewRef(s_empty);
    }
    if ((entity = PyObject_GetAttr(fact, s_object_entity)) == NULL) goto done;
    int is_literal = entity == Py_None;
    if (is_literal) {
        PyObject *value = PyObject_GetAttr(fact, s_object_value);
        if (value == NULL) goto done;
        obj = PyLong_CheckExact(value) ? PyObject_Str(value) : PyObject_CallOneArg(literal_of, value);
        Py_DECREF(value);
    } else {
        obj = PyObject_GetAttr(entity, s_key);
    }
    if (obj == NULL) goto done;
    PyObject *flag = is_literal ? Py_True : Py_False;
    PyObject *subject_items[] = {pred, skey, stype, pol, scoped};
    PyObject *object_items[] = {pred, obj, flag, pol};
    Py_hash_t hs = tuple_hash(subject_items, 5);
    if (hs == -1 && PyErr_Occurred()) goto done;
    Py_hash_t ho = tuple_hash(object_items, 4);
    if (ho == -1 && PyErr_Occurred()) goto done;
    Py_hash_t hp = PyObject_Hash(pred);
    if (hp == -1 && PyErr_Occurred()) goto done;
    if (remember(predicates, hp, pred, recent) < 0) goto done;
    *subject = hs;
    *object = ho;
    *predicate = hp;
    *literal = (uint8_t)is_literal;
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
    return err;
}

PyDoc_STRVAR(fact_hashes_doc,
             "fact_hashes(facts, literal_of, scoped_of, subject, object, predicate, literal, "
             "predicates)\n\nFill the int64 buffers subject/object/predicate and the uint8 "
             "buffer literal, one row per fact; predicates maps each predicate hash to its name.");

static PyObject *fact_hashes(PyObject *self, PyObject *args) {
    PyObject *facts, *literal_of, *scoped_of, *predicates;
    Py_buffer subject, object, predicate, literal;
    if (!PyArg_ParseTuple(args, "O!OOw*w*w*w*O!", &PyList_Type, &facts, &literal_of, &scoped_of,
                          &subject, &object, &predicate, &literal, &PyDict_Type, &predicates))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = PyList_GET_SIZE(facts);
    Recent recent = {{0}, {0}};
    if (writable(&subject, n, 8, "subject") < 0 || writable(&object, n, 8, "object") < 0 ||
        writable(&predicate, n, 8, "predicate") < 0 || writable(&literal, n, 1, "literal") < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (fact_row(PyList_GET_ITEM(facts, i), literal_of, scoped_of,
                     (int64_t *)subject.buf + i, (int64_t *)object.buf + i,
                     (int64_t *)predicate.buf + i, (uint8_t *)literal.buf + i, predicates,
                     &recent) < 0)
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&subject);
    PyBuffer_Release(&object);
    PyBuffer_Release(&predicate);
    PyBuffer_Release(&literal);
    return result;
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
            PyObject *evidence = PyObject_GetAttr(row, s_evidence);
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
                doc = first == NULL ? NULL : PyObject_GetAttr(first, s_doc_id);
                Py_XDECREF(first);
            }
            Py_DECREF(evidence);
        } else {
            doc = PyObject_GetAttr(row, s_doc_id);
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

static PyMethodDef methods[] = {
    {"fact_hashes", fact_hashes, METH_VARARGS, fact_hashes_doc},
    {"doc_hashes", doc_hashes, METH_VARARGS, doc_hashes_doc},
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
#undef INTERN
    return PyModule_Create(&module);
}
