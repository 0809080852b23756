"""Helpers shared by `tflite_bench.py` (this folder) and `scripts/make-goldens`.

Both run MediaPipe's .tflite models with the stock LiteRT interpreter (`ai-edge-litert`) the
way `Tests/Fixtures/README.md` describes: SplitMix64 inputs in the model's range, and, for the
selfie segmentation models, a graph cut before the MediaPipe custom op
`Convolution2DTransposeBias`, whose tail (the custom op and whatever follows it) is computed
here in numpy (MODELS.md section 11.5 allows either registering the op or cutting the graph).
"""

import struct

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as fb
from ai_edge_litert.interpreter import Interpreter

# Input value range of every model covered: face detectors and the pose detector take [-1, 1],
# all the others [0, 1].
MODEL_RANGES = {
    "face_detection_short_range": (-1.0, 1.0),
    "face_detection_full_range_sparse": (-1.0, 1.0),
    "face_landmark": (0.0, 1.0),
    "iris_landmark": (0.0, 1.0),
    "selfie_segmentation": (0.0, 1.0),
    "selfie_segmentation_landscape": (0.0, 1.0),
    "pose_detection": (-1.0, 1.0),
    "pose_landmark_full": (0.0, 1.0),
    "palm_detection_full": (0.0, 1.0),
    "palm_detection_lite": (0.0, 1.0),
    "hand_landmark_full": (0.0, 1.0),
    "hand_landmark_lite": (0.0, 1.0),
    "hand_recrop": (0.0, 1.0),
}

CUSTOM_OP = "Convolution2DTransposeBias"

_OP_NAMES = {v: k for k, v in vars(fb.BuiltinOperator).items() if not k.startswith("_")}
_DTYPES = {fb.TensorType.FLOAT32: "<f4", fb.TensorType.FLOAT16: "<f2", fb.TensorType.INT32: "<i4"}


def splitmix64_input(shape, seed, lo, hi):
    """The README's random input: SplitMix64 from `seed`, one draw per element in flat order,
    u = (z >> 40) / 2^24, value = lo + (hi - lo) * u, all in float32."""
    count = int(np.prod(shape))
    with np.errstate(over="ignore"):
        state = np.uint64(seed) + np.arange(1, count + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float32) / np.float32(16777216)
    values = np.float32(lo) + np.float32(hi - lo) * u
    return values.astype(np.float32).reshape(shape)


# ---------------------------------------------------------------------------------------------
# Flatbuffer access

def read_model(path_or_bytes):
    data = path_or_bytes if isinstance(path_or_bytes, (bytes, bytearray)) else open(path_or_bytes, "rb").read()
    return fb.ModelT.InitFromObj(fb.Model.GetRootAs(bytearray(data), 0))


def pack_model(model):
    builder = flatbuffers.Builder(1 << 20)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def op_name(model, op):
    code = model.operatorCodes[op.opcodeIndex]
    name = _OP_NAMES[max(code.builtinCode, code.deprecatedBuiltinCode)]
    return f"CUSTOM:{code.customCode.decode()}" if name == "CUSTOM" else name


def constant(model, tensor_index):
    """The value of a constant tensor (one whose buffer holds data), else None."""
    tensor = model.subgraphs[0].tensors[tensor_index]
    data = model.buffers[tensor.buffer].data
    if data is None or len(data) == 0:
        return None
    return np.frombuffer(np.asarray(data, dtype=np.uint8).tobytes(), dtype=_DTYPES[tensor.type]).reshape(list(tensor.shape))


def cut_graph(model_bytes, outputs):
    """A copy of the model whose subgraph outputs are `outputs` (tensor indices), keeping only
    the operators those outputs need. Tensor indices are unchanged."""
    model = read_model(model_bytes)
    sg = model.subgraphs[0]
    needed, keep = {int(t) for t in outputs}, []
    for op in reversed(sg.operators):
        if any(int(t) in needed for t in op.outputs):
            keep.append(op)
            needed.update(int(t) for t in op.inputs if t >= 0)
    sg.operators = keep[::-1]
    sg.outputs = np.array(outputs, dtype=np.int32)
    # Drop operator codes nobody uses any more (such as the unresolvable custom op).
    used = sorted({op.opcodeIndex for op in sg.operators})
    remap = {old: new for new, old in enumerate(used)}
    model.operatorCodes = [model.operatorCodes[i] for i in used]
    for op in sg.operators:
        op.opcodeIndex = remap[op.opcodeIndex]
    model.signatureDefs = []
    return pack_model(model)


def custom_tail(model):
    """Indices of the operators to run outside the interpreter: the custom op, everything that
    depends on its result, and the constant-only ops (fp16 DEQUANTIZE) that feed only them.
    Empty when the model has no such custom op."""
    ops = model.subgraphs[0].operators
    tail = {k for k, op in enumerate(ops) if op_name(model, op) == f"CUSTOM:{CUSTOM_OP}"}
    if not tail:
        return []
    produced = {}
    for k, op in enumerate(ops):
        produced.update({int(t): k for t in op.outputs})
    first = min(tail)
    for k in range(first + 1, len(ops)):  # downstream of the custom op
        if any(produced.get(int(t)) in tail for t in ops[k].inputs):
            tail.add(k)
    consumers = {}
    for k, op in enumerate(ops):
        for t in op.inputs:
            consumers.setdefault(int(t), set()).add(k)
    for k, op in enumerate(ops):  # constant preparation used only by the tail
        if k not in tail and all(constant(model, int(t)) is not None for t in op.inputs) \
                and all(consumers.get(int(t), set()) <= tail for t in op.outputs):
            tail.add(k)
    return sorted(tail)


# ---------------------------------------------------------------------------------------------
# The numpy tail

def conv2d_transpose_bias(x, weights, bias, options):
    """MediaPipe's Convolution2DTransposeBias on NHWC float32 input, computed in float64.
    weights OHWI, bias [O]; options: three little-endian int32 padding (1 SAME, 2 VALID),
    stride_w, stride_h. Returns float32."""
    padding, stride_w, stride_h = struct.unpack("<3i", np.asarray(options, dtype=np.uint8).tobytes()[:12])
    x, w, b = (np.asarray(a, dtype=np.float64) for a in (x, weights, bias))
    n, h, wd, _ = x.shape
    o, kh, kw, _ = w.shape
    full = np.zeros((n, stride_h * (h - 1) + kh, stride_w * (wd - 1) + kw, o))
    for a in range(kh):
        for c in range(kw):
            # out[s*y + a][s*x + c][o] += sum_i x[y][x][i] * W[o][a][c][i]
            full[:, a:a + stride_h * h:stride_h, c:c + stride_w * wd:stride_w, :] += \
                np.einsum("nyxi,oi->nyxo", x, w[:, a, c, :])
    if padding == 1:  # SAME: drop pad_total = max(0, k - ((in - 1) mod stride) - 1), origin at pad_total / 2
        pad_h = max(0, kh - ((h - 1) % stride_h) - 1)
        pad_w = max(0, kw - ((wd - 1) % stride_w) - 1)
        full = full[:, pad_h // 2:full.shape[1] - (pad_h - pad_h // 2),
                    pad_w // 2:full.shape[2] - (pad_w - pad_w // 2), :]
    elif padding != 2:
        raise ValueError(f"{CUSTOM_OP}: unknown padding {padding}")
    return (full + b.reshape(-1)).astype(np.float32)


def logistic(x):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(np.float32)


def run_tail(model, tail, values):
    """Runs the tail operators (indices, in graph order) in numpy. `values` maps tensor index
    to array and receives the results."""
    sg = model.subgraphs[0]
    for k in tail:
        op = sg.operators[k]
        name = op_name(model, op)
        args = []
        for t in op.inputs:
            v = values.get(int(t))
            args.append(constant(model, int(t)) if v is None else v)
        if name == "DEQUANTIZE" and args[0].dtype == np.float16:
            out = args[0].astype(np.float32)
        elif name == f"CUSTOM:{CUSTOM_OP}":
            out = conv2d_transpose_bias(args[0], args[1], args[2], op.customOptions)
        elif name == "LOGISTIC":
            out = logistic(args[0])
        else:
            raise NotImplementedError(f"numpy tail: operator {name} is not implemented")
        values[int(op.outputs[0])] = out
    return values


# ---------------------------------------------------------------------------------------------
# A model as the stock interpreter runs it

class PeerModel:
    """A model on the stock interpreter (default settings: built-in op resolver with the default
    XNNPACK delegate). Models with the custom op run cut before it, plus the numpy tail."""

    def __init__(self, path, threads=1, tail=None):
        """`tail`: operator indices to run in numpy instead of `custom_tail(model)`."""
        data = open(path, "rb").read()
        self.model = read_model(data)
        sg = self.model.subgraphs[0]
        self.outputs = [int(t) for t in sg.outputs]
        self.tail = custom_tail(self.model) if tail is None else sorted(tail)
        if self.tail:
            tail_outputs = {int(t) for k in self.tail for t in sg.operators[k].outputs}
            cut = [t for t in self.outputs if t not in tail_outputs]
            for k in self.tail:
                cut += [int(t) for t in sg.operators[k].inputs
                        if int(t) not in tail_outputs and int(t) not in cut
                        and constant(self.model, int(t)) is None]
            data = cut_graph(data, cut)
        self.interpreter = Interpreter(model_content=data, num_threads=threads)
        self.interpreter.allocate_tensors()
        (self.input,) = self.interpreter.get_input_details()
        self.head_outputs = [d["index"] for d in self.interpreter.get_output_details()]

    @property
    def tail_ops(self):
        return [op_name(self.model, self.model.subgraphs[0].operators[k]) for k in self.tail]

    def output_name(self, tensor_index):
        return self.model.subgraphs[0].tensors[tensor_index].name.decode()

    def set_input(self, x):
        self.interpreter.set_tensor(self.input["index"], x)

    def invoke(self):
        self.interpreter.invoke()

    def head_values(self):
        return {t: self.interpreter.get_tensor(t).copy() for t in self.head_outputs}

    def finish(self, values):
        """The model's outputs, in interpreter (subgraph) order, from the head's values."""
        run_tail(self.model, self.tail, values)
        return [values[t] for t in self.outputs]

    def run(self, x):
        self.set_input(x)
        self.invoke()
        return self.finish(self.head_values())
