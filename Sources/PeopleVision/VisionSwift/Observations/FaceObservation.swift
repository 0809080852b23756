import Foundation

/// A face, as Vision's `FaceObservation` (iOS 18): the result of the face requests, converted from a
/// ``VNFaceObservation`` with the same numbers.
///
/// Angles follow ``VNFaceObservation``'s conventions. Apple's angles are not optional here; where the engine does not
/// compute one (it computes all three at revision 3) the angle is 0.
public struct FaceObservation: VisionObservation, BoundingBoxProviding {
    /// A face's capture quality, as Vision's `FaceObservation.CaptureQuality`.
    public struct CaptureQuality: Sendable, Hashable, Codable {
        /// The request that scored the face.
        public let originatingRequestDescriptor: RequestDescriptor?
        /// The score, 0…1; compare it only between captures of the same face.
        public let score: Float
    }

    /// A face's landmarks, as Vision's `FaceObservation.Landmarks2D`: points normalized to the face's
    /// ``FaceObservation/boundingBox``, lower-left origin.
    public struct Landmarks2D: Sendable, Hashable, Codable {
        /// One region's points, as Vision's `FaceObservation.Landmarks2D.Region`.
        public struct Region: Sendable, Hashable, Codable {
            /// How a region's points connect.
            public enum PointsClassification: Sendable, Hashable, Codable {
                case closedPath
                case disconnected
                case openPath
            }

            /// The request that found the region.
            public let originatingRequestDescriptor: RequestDescriptor?
            /// The points, normalized to the face's bounding box (lower-left origin).
            public let points: [NormalizedPoint]
            /// How the points connect.
            public let pointsClassification: PointsClassification
            /// One estimate per point (0…1) where the engine makes them (``VNFaceLandmarkRegion2D``), else nil.
            public let precisionEstimatesPerPoint: [Float]?
            /// The face's box, which the points are normalized to.
            private let faceBoundingBox: NormalizedRect

            init(_ region: VNFaceLandmarkRegion2D?, faceBoundingBox: NormalizedRect, descriptor: RequestDescriptor?) {
                originatingRequestDescriptor = descriptor
                points = region?.normalizedPoints.map(NormalizedPoint.init(normalizedPoint:)) ?? []
                pointsClassification = switch region?.pointsClassification ?? .disconnected {
                case .disconnected: .disconnected
                case .openPath: .openPath
                case .closedPath: .closedPath
                }
                precisionEstimatesPerPoint = region?.precisionEstimatesPerPoint
                self.faceBoundingBox = faceBoundingBox
            }

            /// The points in pixels of an image of `imageSize`, measured from the given origin.
            public func pointsInImageCoordinates(_ imageSize: CGSize, origin: CoordinateOrigin = .lowerLeft) -> [CGPoint] {
                let b = faceBoundingBox.cgRect
                return points.map {
                    NormalizedPoint(x: b.minX + $0.x * b.width, y: b.minY + $0.y * b.height)
                        .toImageCoordinates(imageSize, origin: origin)
                }
            }
        }

        /// The request that found the landmarks.
        public let originatingRequestDescriptor: RequestDescriptor?
        /// The regions in ``Name`` order; nil where the engine makes none.
        private let regions: [Region?]
        private let faceBoundingBox: NormalizedRect

        /// The regions, in the order ``regions`` stores them.
        private enum Name: Int, CaseIterable {
            case allPoints, faceContour, innerLips, outerLips, leftEye, rightEye, leftEyebrow, rightEyebrow, leftPupil
            case rightPupil, medianLine, nose, noseCrest

            /// The engine's region of this name.
            var engineRegion: KeyPath<VNFaceLandmarks2D, VNFaceLandmarkRegion2D?> { Self.engineRegions[rawValue] }
            private static let engineRegions: [KeyPath<VNFaceLandmarks2D, VNFaceLandmarkRegion2D?> & Sendable] = [
                \.allPoints, \.faceContour, \.innerLips, \.outerLips, \.leftEye, \.rightEye, \.leftEyebrow, \.rightEyebrow,
                \.leftPupil, \.rightPupil, \.medianLine, \.nose, \.noseCrest,
            ]
        }

        init(_ landmarks: VNFaceLandmarks2D, faceBoundingBox: NormalizedRect, descriptor: RequestDescriptor?) {
            originatingRequestDescriptor = descriptor
            self.faceBoundingBox = faceBoundingBox
            regions = Name.allCases.map { name in
                landmarks[keyPath: name.engineRegion].map { Region($0, faceBoundingBox: faceBoundingBox, descriptor: descriptor) }
            }
        }

        /// A region by name; one the engine does not produce is empty.
        private func region(_ name: Name) -> Region {
            regions[name.rawValue] ?? Region(nil, faceBoundingBox: faceBoundingBox, descriptor: originatingRequestDescriptor)
        }

        /// Every landmark point.
        public var allPoints: Region { region(.allPoints) }
        /// The face's outline, ear to ear over the chin.
        public var faceContour: Region { region(.faceContour) }
        /// The lips' inner outline.
        public var innerLips: Region { region(.innerLips) }
        /// The lips' outer outline.
        public var outerLips: Region { region(.outerLips) }
        /// The subject's left eye.
        public var leftEye: Region { region(.leftEye) }
        /// The subject's right eye.
        public var rightEye: Region { region(.rightEye) }
        /// The subject's left eyebrow.
        public var leftEyebrow: Region { region(.leftEyebrow) }
        /// The subject's right eyebrow.
        public var rightEyebrow: Region { region(.rightEyebrow) }
        /// The subject's left pupil (one point).
        public var leftPupil: Region { region(.leftPupil) }
        /// The subject's right pupil (one point).
        public var rightPupil: Region { region(.rightPupil) }
        /// The face's vertical midline.
        public var medianLine: Region { region(.medianLine) }
        /// The nose's outline.
        public var nose: Region { region(.nose) }
        /// The nose's ridge.
        public var noseCrest: Region { region(.noseCrest) }
    }

    public let uuid: UUID
    public let confidence: Float
    public let originatingRequestDescriptor: RequestDescriptor?
    public let timeRange: CMTimeRange?
    /// In-plane rotation (counter-clockwise on screen positive).
    public let roll: Measurement<UnitAngle>
    /// Rotation about the vertical axis (toward the image's right positive).
    public let yaw: Measurement<UnitAngle>
    /// Rotation about the horizontal axis (nodding down positive).
    public let pitch: Measurement<UnitAngle>
    private let box: NormalizedRect
    private let storedLandmarks: Landmarks2D?
    private let storedCaptureQuality: CaptureQuality?
    private var link = EngineLink<VNFaceObservation>()

    private enum CodingKeys: String, CodingKey {
        case uuid, confidence, originatingRequestDescriptor, timeRange, roll, yaw, pitch, box, storedLandmarks, storedCaptureQuality
    }

    /// One unit for every angle: Foundation makes a new `UnitAngle` object each time `.radians` is read.
    private static let radians = UnitAngle.radians

    /// The face's box, normalized to the image (or the request's region of interest), lower-left origin.
    public var boundingBox: NormalizedRect { box }
    /// The landmarks, when a landmarks request produced the observation.
    public var landmarks: Landmarks2D? { storedLandmarks }
    /// The capture quality, when a capture-quality request produced the observation.
    public var captureQuality: CaptureQuality? { storedCaptureQuality }

    /// A face to give to a landmarks or capture-quality request (confidence 1, angles 0).
    public init(boundingBox: NormalizedRect, revision: DetectFaceRectanglesRequest.Revision? = nil) {
        uuid = UUID()
        confidence = 1
        originatingRequestDescriptor = revision.map { .detectFaceRectanglesRequest($0) }
        timeRange = nil
        roll = Measurement(value: 0, unit: Self.radians)
        yaw = Measurement(value: 0, unit: Self.radians)
        pitch = Measurement(value: 0, unit: Self.radians)
        box = boundingBox
        storedLandmarks = nil
        storedCaptureQuality = nil
    }

    /// The same face as a `VNFaceObservation`'s (no originating request is known).
    public init(_ observation: VNFaceObservation) { self.init(observation, descriptor: nil) }

    init(_ observation: VNFaceObservation, descriptor: RequestDescriptor?) {
        uuid = observation.uuid
        confidence = observation.confidence
        originatingRequestDescriptor = descriptor
        timeRange = observation.frameTimeRange
        func angle(_ n: NSNumber?) -> Measurement<UnitAngle> { Measurement(value: n?.doubleValue ?? 0, unit: Self.radians) }
        roll = angle(observation.roll)
        yaw = angle(observation.yaw)
        pitch = angle(observation.pitch)
        let box = NormalizedRect(normalizedRect: observation.boundingBox)
        self.box = box
        storedLandmarks = observation.landmarks.map { Landmarks2D($0, faceBoundingBox: box, descriptor: descriptor) }
        storedCaptureQuality = observation.faceCaptureQuality.map { CaptureQuality(originatingRequestDescriptor: descriptor, score: $0) }
        link = EngineLink(observation)
    }

    /// The face as the engine's requests take it: the observation it came from, else one rebuilt from its values
    /// (with its `uuid`, which the refined result keeps).
    var engineObservation: VNFaceObservation {
        if let o = link.object { return o }
        return VNFaceObservation(
            boundingBox: box.cgRect, confidence: confidence, requestRevision: VNDetectFaceRectanglesRequestRevision3,
            roll: NSNumber(value: roll.converted(to: .radians).value), yaw: NSNumber(value: yaw.converted(to: .radians).value),
            pitch: NSNumber(value: pitch.converted(to: .radians).value), landmarks: nil, faceCaptureQuality: nil, source: nil,
            uuid: uuid)
    }
}

/// A person's box, as Vision's `HumanObservation` (iOS 18), converted from a ``VNHumanObservation``.
public struct HumanObservation: VisionObservation, BoundingBoxProviding {
    public let uuid: UUID
    public let confidence: Float
    public let originatingRequestDescriptor: RequestDescriptor?
    public let timeRange: CMTimeRange?
    /// The person's box, normalized to the image (or the request's region of interest), lower-left origin.
    public let boundingBox: NormalizedRect
    /// Whether the box covers the upper body only.
    public let isUpperBodyOnly: Bool

    /// A box made by hand (confidence 1, full body).
    public init(boundingBox: NormalizedRect, revision: DetectHumanRectanglesRequest.Revision? = nil) {
        uuid = UUID()
        confidence = 1
        originatingRequestDescriptor = revision.map { .detectHumanRectanglesRequest($0) }
        timeRange = nil
        self.boundingBox = boundingBox
        isUpperBodyOnly = false
    }

    /// The same person as a `VNHumanObservation`'s.
    public init(_ observation: VNHumanObservation) { self.init(observation, descriptor: nil) }

    init(_ observation: VNHumanObservation, descriptor: RequestDescriptor?) {
        uuid = observation.uuid
        confidence = observation.confidence
        originatingRequestDescriptor = descriptor
        timeRange = observation.frameTimeRange
        boundingBox = NormalizedRect(normalizedRect: observation.boundingBox)
        isUpperBodyOnly = observation.upperBodyOnly
    }
}
