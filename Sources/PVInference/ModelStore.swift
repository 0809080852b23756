import Foundation
import PVCore

/// Finds the installed model files and sample images.
///
/// Models live in `$PEOPLEVISION_MODELS`, or `~/.cache/peoplevision/models` when that variable is
/// unset. `scripts/bootstrap` installs them there from the pinned MediaPipe wheel, verified by SHA-256.
///
/// ```swift
/// let url = try ModelStore.default.url(for: "selfie_segmentation.tflite")
/// ```
public struct ModelStore: Sendable {
    /// The folder searched.
    public let directory: URL

    /// The command that installs the models, named in every "missing model" error.
    public static let installCommand = "scripts/bootstrap"

    public init(directory: URL) { self.directory = directory }

    /// The models the pipelines use (file names without `.tflite`), in the order tools list them.
    package static let pipelineModels = [
        "face_detection_short_range", "face_detection_full_range_sparse", "face_landmark", "iris_landmark",
        "selfie_segmentation", "selfie_segmentation_landscape", "pose_detection", "pose_landmark_full",
        "palm_detection_full", "palm_detection_lite", "hand_landmark_full", "hand_landmark_lite", "hand_recrop",
    ]

    /// Pipeline models with MediaPipe's own custom operators, which the TensorFlow Lite interpreter does not run
    /// (so they have no TFLite reference outputs or peer timings).
    package static let mediaPipeOperatorModels = ["face_landmark_with_attention"]

    /// The store at `$PEOPLEVISION_MODELS`, or `~/.cache/peoplevision/models`.
    public static var `default`: ModelStore {
        if let path = ProcessInfo.processInfo.environment["PEOPLEVISION_MODELS"], !path.isEmpty {
            return ModelStore(directory: URL(fileURLWithPath: path, isDirectory: true))
        }
        let home = FileManager.default.homeDirectoryForCurrentUser
        return ModelStore(directory: home.appendingPathComponent(".cache/peoplevision/models", isDirectory: true))
    }

    /// The location of an installed file (model or sample image).
    /// - Throws: ``InferenceError`` with code `.modelNotFound`, naming the missing file and the command that installs it.
    public func url(for name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw InferenceError(
                .modelNotFound,
                "\(name) is not installed in \(directory.path). Run \(Self.installCommand) to install the models "
                    + "(set PEOPLEVISION_MODELS to use another folder).")
        }
        return url
    }
}
