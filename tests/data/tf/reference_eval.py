# The reference outputs of tests/graph/tf/frozen_graphs_test.cpp for lstm.pb and gru.pb, whose
# source states none: an evaluation of the GraphDef that shares no code with caflow (a minimal
# protobuf wire reader and the graphs' ops in double precision, standard library only).
#   python3 tests/data/tf/reference_eval.py tests/data/tf/lstm.pb
# Input: X = 1, 2, ..., 784 (tensorflow-onnx's get_ramp) of shape [1, 784], keep_prob = 1 (the
# dropout is then the identity, whatever RandomUniform draws).
import struct, sys, math, random

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if not c & 0x80: return v, i

def fields(b):
    i = 0; out = []
    while i < len(b):
        t, i = varint(b, i); f, w = t >> 3, t & 7
        if w == 0: v, i = varint(b, i)
        elif w == 1: v = b[i:i+8]; i += 8
        elif w == 5: v = b[i:i+4]; i += 4
        elif w == 2:
            n, i = varint(b, i); v = b[i:i+n]; i += n
        else: raise ValueError(w)
        out.append((f, w, v))
    return out

def s64(v): return v - (1 << 64) if v >= 1 << 63 else v

def packed_varints(v):
    i = 0; r = []
    while i < len(v):
        x, i = varint(v, i); r.append(s64(x))
    return r

def shape_of(b):
    dims = []
    for f, w, v in fields(b):
        if f == 2:
            size = 0
            for f2, w2, v2 in fields(v):
                if f2 == 1: size = s64(v2)
            dims.append(size)
    return dims

def tensor_of(b):
    dtype = 1; shape = []; content = b''; fl = []; iv = []; i64 = []
    for f, w, v in fields(b):
        if f == 1: dtype = v
        elif f == 2: shape = shape_of(v)
        elif f == 4: content = v
        elif f == 5: fl += list(struct.unpack('<%df' % (len(v)//4), v)) if w == 2 else [struct.unpack('<f', v)[0]]
        elif f == 7: iv += packed_varints(v) if w == 2 else [s64(v)]
        elif f == 10: i64 += packed_varints(v) if w == 2 else [s64(v)]
    n = 1
    for d in shape: n *= d
    if content:
        code = {1: 'f', 3: 'i', 9: 'q'}[dtype]
        vals = list(struct.unpack('<%d%s' % (n, code), content))
    else:
        vals = {1: fl, 3: iv, 9: i64}[dtype]
        vals = (vals + [vals[-1] if vals else 0] * n)[:n]
    return (shape, vals)

def attr_of(b):
    for f, w, v in fields(b):
        if f == 3: return s64(v)
        if f == 5: return bool(v)
        if f == 6: return v
        if f == 2: return v.decode()
        if f == 8: return tensor_of(v)
        if f == 1:
            return [s64(x) for x in packed_varints(dict((ff, vv) for ff, ww, vv in fields(v)).get(3, b''))]
        if f == 7: return shape_of(v)
    return None

def graph(path):
    nodes = []
    for f, w, v in fields(open(path, 'rb').read()):
        if f != 1: continue
        n = {'input': [], 'attr': {}}
        for f2, w2, v2 in fields(v):
            if f2 == 1: n['name'] = v2.decode()
            elif f2 == 2: n['op'] = v2.decode()
            elif f2 == 3: n['input'].append(v2.decode())
            elif f2 == 5:
                kv = dict((ff, vv) for ff, ww, vv in fields(v2))
                n['attr'][kv[1].decode()] = attr_of(kv.get(2, b''))
        nodes.append(n)
    return nodes

# A tensor is (shape, flat list).
def size(shape):
    n = 1
    for d in shape: n *= d
    return n

def bcast(a, b, fn):
    (sa, va), (sb, vb) = a, b
    r = max(len(sa), len(sb)); sa2 = [1]*(r-len(sa)) + sa; sb2 = [1]*(r-len(sb)) + sb
    so = [max(x, y) for x, y in zip(sa2, sb2)]
    out = []
    def idx(s, coords):
        k = 0
        for d, c in zip(s, coords): k = k * d + (c if d > 1 else 0)
        return k
    n = size(so); coords = [0]*r
    for i in range(n):
        rem = i
        for j in range(r-1, -1, -1): coords[j] = rem % so[j]; rem //= so[j]
        out.append(fn(va[idx(sa2, coords)], vb[idx(sb2, coords)]))
    return (so, out)

def matmul(a, b, ta, tb):
    (sa, va), (sb, vb) = a, b
    m, k = (sa[1], sa[0]) if ta else (sa[0], sa[1])
    k2, n = (sb[1], sb[0]) if tb else (sb[0], sb[1])
    A = lambda i, j: va[j*sa[1]+i] if ta else va[i*sa[1]+j]
    B = lambda i, j: vb[j*sb[1]+i] if tb else vb[i*sb[1]+j]
    out = []
    for i in range(m):
        row = [A(i, kk) for kk in range(k)]
        for j in range(n):
            out.append(math.fsum(row[kk] * B(kk, j) for kk in range(k)))
    return ([m, n], out)

def split_axis(t, axis, parts):
    s, v = t; axis %= len(s)
    outer = size(s[:axis]); inner = size(s[axis+1:]); d = s[axis]; step = d // parts
    res = []
    for p in range(parts):
        out = []
        for o in range(outer):
            for a in range(p*step, (p+1)*step):
                base = (o*d + a) * inner; out += v[base:base+inner]
        res.append((s[:axis] + [step] + s[axis+1:], out))
    return res

def concat(ts, axis):
    s0 = ts[0][0]; axis %= len(s0)
    outer = size(s0[:axis]); inner = size(s0[axis+1:]); out = []
    for o in range(outer):
        for s, v in ts:
            d = s[axis]; out += v[o*d*inner:(o+1)*d*inner]
    return (s0[:axis] + [sum(s[axis] for s, _ in ts)] + s0[axis+1:], out)

def strided_slice(t, b, e, st, n):
    s, v = t
    assert n['attr'].get('ellipsis_mask', 0) == 0 and n['attr'].get('new_axis_mask', 0) == 0
    bm, em, sm = n['attr'].get('begin_mask', 0), n['attr'].get('end_mask', 0), n['attr'].get('shrink_axis_mask', 0)
    assert len(s) == 1 and all(x == 1 for x in st[1])
    d = s[0]; beg = b[1][0]; end = e[1][0]
    if bm & 1: beg = 0
    if em & 1: end = d
    if beg < 0: beg += d
    if end < 0: end += d
    if sm & 1: return ([], [v[beg]])
    return ([end - beg], v[beg:end])

def run(nodes, feeds, fetch):
    by = {n['name']: n for n in nodes}; memo = {}
    def val(ref):
        name, _, port = ref.partition(':'); port = int(port or 0)
        return ev(name)[port]
    def ev(name):
        if name in memo: return memo[name]
        n = by[name]; op = n['op']; A = n['attr']
        ins = [val(i) for i in n['input'] if not i.startswith('^')]
        if op == 'Placeholder': r = [feeds[name]]
        elif op == 'Const': r = [A['value']]
        elif op == 'Identity': r = [ins[0]]
        elif op == 'Shape': r = [([len(ins[0][0])], list(ins[0][0]))]
        elif op == 'StridedSlice': r = [strided_slice(*ins, n)]
        elif op == 'Pack':
            assert A.get('axis', 0) == 0
            r = [([len(ins)] + ins[0][0], sum((v for _, v in ins), []))]
        elif op == 'Reshape':
            s = list(ins[1][1]); tot = size(ins[0][0])
            if -1 in s: k = s.index(-1); s[k] = tot // -size(s)
            r = [(s, ins[0][1])]
        elif op == 'Unpack':
            ax = A.get('axis', 0); parts = split_axis(ins[0], ax, ins[0][0][ax % len(ins[0][0])])
            r = [(s[:ax % len(s)] + s[ax % len(s) + 1:], v) for s, v in parts]
        elif op == 'ExpandDims':
            s = list(ins[0][0]); ax = ins[1][1][0]
            if ax < 0: ax += len(s) + 1
            r = [(s[:ax] + [1] + s[ax:], ins[0][1])]
        elif op == 'ConcatV2': r = [concat(ins[:-1], ins[-1][1][0])]
        elif op == 'Fill': r = [(list(ins[0][1]), ins[1][1] * size(ins[0][1]))]
        elif op == 'MatMul': r = [matmul(ins[0], ins[1], A.get('transpose_a', False), A.get('transpose_b', False))]
        elif op == 'BiasAdd' or op == 'Add': r = [bcast(ins[0], ins[1], lambda x, y: x + y)]
        elif op == 'Sub': r = [bcast(ins[0], ins[1], lambda x, y: x - y)]
        elif op == 'Mul': r = [bcast(ins[0], ins[1], lambda x, y: x * y)]
        elif op == 'RealDiv': r = [bcast(ins[0], ins[1], lambda x, y: x / y)]
        elif op == 'Split': r = split_axis(ins[1], ins[0][1][0], A['num_split'])
        elif op == 'Sigmoid': r = [(ins[0][0], [1 / (1 + math.exp(-x)) if x > -700 else 0.0 for x in ins[0][1]])]
        elif op == 'Tanh': r = [(ins[0][0], [math.tanh(x) for x in ins[0][1]])]
        elif op == 'Floor': r = [(ins[0][0], [math.floor(x) for x in ins[0][1]])]
        elif op == 'RandomUniform':
            s = list(ins[0][1]); r = [(s, [random.random() for _ in range(size(s))])]
        else: raise NotImplementedError(op)
        memo[name] = r
        return r
    return val(fetch)

if __name__ == '__main__':
    nodes = graph(sys.argv[1])
    x = ([1, 784], [float(i + 1) for i in range(784)])
    out = run(nodes, {'X': x, 'keep_prob': ([], [1.0])}, 'output')
    print(out[0], ['%.9g' % v for v in out[1]])
