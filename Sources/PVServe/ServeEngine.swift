#if Serve
import Foundation
import PVThreads

/// What the HTTP service asks of the engine. The service itself knows HTTP, limits, queues and metrics; an engine
/// turns one decoded-to-be image into the bytes of a response. `peoplevision` implements it over the same code its
/// commands use, so `POST /v1/analyze` answers with exactly the JSON `peoplevision analyze` writes.
///
/// Every call runs on one of the service's engine threads (started by PVThreads), one job per thread, under the job's
/// cancellation flag; the engine may block. The engine's own model runs check that flag; between steps of its own an
/// engine calls ``EngineJob/checkCancelled()``, so that a request past its deadline stops early.
package protocol ServeEngine: Sendable {
    /// The names `POST /v1/analyze?requests=` accepts, in the order they run.
    var analysisNames: [String] { get }
    /// Loads every model, so that the first request pays no loading time. Called once, on an engine thread.
    func warmUp() throws
    /// Runs one job and returns the response body.
    func run(_ job: EngineJob) throws -> EngineOutput
}

/// One unit of engine work: an operation on an uploaded image.
package struct EngineJob: Sendable {
    /// The uploaded image file (JPEG, PNG, HEIC or WebP), already checked from its header.
    package let image: Data
    /// What to do with it.
    package let operation: Operation
    /// The image's name in records (`image`): the uploaded file's name, or `upload`.
    package let name: String
    /// Raised when the request is given up (deadline passed or its task cancelled). The job runs under it
    /// (PVThreads' `Cancellation`), so the engine itself stops before its next model run.
    package let cancellation: CancellationFlag

    package init(image: Data, operation: Operation, name: String = "upload", cancellation: CancellationFlag = CancellationFlag()) {
        self.image = image
        self.operation = operation
        self.name = name
        self.cancellation = cancellation
    }

    /// Throws ``ServeError/timedOut`` once the request was given up: engines call it between models.
    package func checkCancelled() throws {
        if cancellation.isRaised { throw ServeError.timedOut }
    }

    /// The operations of the HTTP API (see `openapi.json`).
    package enum Operation: Sendable, Equatable {
        /// `analyze`'s JSON record for the named analyses (masks inlined as `data:` URLs).
        case analyze(requests: [String])
        /// The person mask as a grey PNG.
        case segment(quality: Quality, format: MaskFormat)
        /// The people over a new background.
        case greet(background: Background, quality: Quality, output: PictureFormat)
        /// The people on transparency (straight-alpha RGBA PNG), the person mask as alpha.
        case cutout(quality: Quality)
        /// The person-instance label map (8-bit PNG: 0 background, 1… people), or the cut-out of chosen instances.
        case instances(output: InstancesOutput)
        /// rembg's `/api/remove`: the cut-out, only the mask (`om`), or the people over a colour (`bgc`).
        case remove(maskOnly: Bool, background: RGBA?)
    }

    /// Person-segmentation quality level.
    package enum Quality: String, Sendable, CaseIterable { case fast, balanced, accurate }
    /// Mask pixel format, as `peoplevision segment --format`.
    package enum MaskFormat: String, Sendable, CaseIterable { case u8, f16, f32 }
    /// An output picture format.
    package enum PictureFormat: String, Sendable, CaseIterable { case jpeg, png }

    /// A greeting's background.
    package enum Background: Sendable, Equatable {
        case color(RGBA)
        case blur
        /// An uploaded picture, stretched over the photo.
        case image(Data)
    }

    /// What `POST /v1/instances` returns.
    package enum InstancesOutput: Sendable, Equatable {
        case labels
        /// The chosen instances (nil: every person; 0 is the background) on transparency, optionally cropped.
        case cutout(select: [Int]?, crop: Bool)
    }

    /// An 8-bit colour.
    package struct RGBA: Sendable, Equatable {
        package var red, green, blue, alpha: UInt8
        package init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
            (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
        }
    }
}

/// A response body and its media type.
package struct EngineOutput: Sendable {
    package let body: Data
    package let contentType: String
    package init(body: Data, contentType: String) {
        self.body = body
        self.contentType = contentType
    }
}
#endif
