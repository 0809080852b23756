import PVTestSupport
import Testing

@testable import PVInference

/// The interpreter's activation arena: tensors that are alive at the same time never share memory.
@Suite struct ArenaLayoutTests {
    @Test(arguments: ModelStore.pipelineModels + ModelStore.mediaPipeOperatorModels)
    func liveTensorsNeverOverlap(model stem: String) throws {
        let plan = try CompiledModel(contentsOf: try TestFiles.installed("\(stem).tflite")).plan
        let owned = plan.boundaryTensors
        let layout = plan.arenaLayout(owned)
        func range(_ t: Int) -> Range<Int> { layout.offsets[t]!..<(layout.offsets[t]! + plan.shapes[t].reduce(1, *)) }
        for t in owned {
            #expect(layout.offsets[t]! % 16 == 0, "\(stem): tensor \(t) is 64-byte aligned")
            #expect(range(t).upperBound + FloatBuffer.padding <= layout.count, "\(stem): tensor \(t) and its padding fit")
        }
        // Every tensor a stage part touches is alive during that part: their memory must be disjoint.
        // Graph inputs and outputs must not share memory with anything.
        var groups = plan.stages.map { $0.xnnNodes } + plan.stages.flatMap { $0.swiftNodes.map { [$0] } }
        groups = groups.filter { !$0.isEmpty }
        let pinned = Set(plan.inputs + plan.outputs)
        let ownedSet = Set(owned)
        var checked = 0
        for group in groups {
            let tensors = Array(Set(group.flatMap { plan.nodes[$0].inputs + plan.nodes[$0].outputs }).intersection(ownedSet).union(pinned))
            for (i, a) in tensors.enumerated() {
                for b in tensors[(i + 1)...] {
                    #expect(!range(a).overlaps(range(b)), "\(stem): tensors \(a) and \(b) are alive together but share memory")
                    checked += 1
                }
            }
        }
        #expect(checked > 0)
    }
}
