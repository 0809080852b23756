import Foundation
import PeopleVision

/// Bodies: every person's 19 Vision joints (harness `bodies` list) and their human rectangles, drawn as skeletons
/// with upper-body (green) and full-body (white) boxes.
final class BodiesStep: AnalyzeStep {
    let bodies = VNDetectHumanBodyPoseRequest()
    let upper = VNDetectHumanRectanglesRequest()
    let full = VNDetectHumanRectanglesRequest()

    init() { full.upperBodyOnly = false }

    func perform(on handler: VNImageRequestHandler) throws {
        // One handler: the three requests share one run of the body pipeline.
        try handler.perform([bodies, upper, full])
    }

    func write(into record: inout [String: Any], context: AnalyzeContext) throws {
        record["bodies"] = BodyRecords.records(bodies.results ?? [])
        record["humanRectangles"] = [
            "upperBody": BodyRecords.boxes(upper.results ?? []), "fullBody": BodyRecords.boxes(full.results ?? []),
        ]
    }

    func draw(on canvas: inout Canvas, context: AnalyzeContext) throws {
        BodyRecords.draw(bodies.results ?? [], upper: upper.results ?? [], full: full.results ?? [], on: &canvas)
    }
}
