import Foundation
import PeopleVision

/// Hands: up to `maximumHandCount` hands with 21 joints and chirality (harness `hands` list), drawn as skeletons
/// with an L / R label.
final class HandsStep: AnalyzeStep {
    let request = VNDetectHumanHandPoseRequest()

    init(maximumHandCount: Int = 2) { request.maximumHandCount = maximumHandCount }

    func perform(on handler: VNImageRequestHandler) throws {
        try handler.perform([request])
    }

    func write(into record: inout [String: Any], context: AnalyzeContext) throws {
        record["hands"] = HandRecords.records(request.results ?? [])
    }

    func draw(on canvas: inout Canvas, context: AnalyzeContext) throws {
        HandRecords.draw(request.results ?? [], on: &canvas)
    }
}
