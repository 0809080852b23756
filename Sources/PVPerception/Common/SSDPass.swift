import PVImaging
import PVInference

/// What the three SSD detectors (face, palm, pose) share: their model's check at load, and one pass of the model over
/// a part of an image.
enum SSDPass {
    /// The interpreter pool of a detector model, checked: one `size × size × 3` input, and two outputs holding
    /// `values` regressors and one score per anchor.
    /// - Throws: `InferenceError` `.modelNotFound` when the model is not installed; ``PerceptionError``
    ///   `.unexpectedModel` when its tensors are not those.
    static func pool(modelNamed name: String, size: Int, anchors: Int, values: Int, threads: Int?) throws -> InterpreterPool {
        try InterpreterPool(
            modelNamed: name, threads: threads, input: [1, size, size, 3], outputCounts: [anchors * values, anchors],
            expected: "[1, \(size), \(size), 3] → [1, \(anchors), \(values)], [1, \(anchors), 1]")
    }

    /// One pass over `rect` (letterboxed into the model's square input by `sampler`, rounded to byte levels as the
    /// graphs' 8-bit images are): the decoded candidates, normalized to the tensor, and the letterbox padding.
    static func run(
        _ interpreter: Interpreter, image: PixelBuffer, rect: RotatedRect, sampler: TensorSampler, decoder: SSDDecoder
    ) throws -> ([Detection], LetterboxPadding) {
        let padding = try interpreter.sampleInput(image, rect: rect, sampler: sampler)
        try interpreter.invoke()
        let detections = interpreter.withOutput(0) { regressors in
            interpreter.withOutput(1) { scores in decoder.decode(regressors: regressors, scores: scores) }
        }
        return (detections, padding)
    }
}
