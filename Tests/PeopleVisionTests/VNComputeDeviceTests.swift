import Foundation
import PVTestSupport
import PeopleVision
import Synchronization
import Testing

/// The iOS 17 compute-device API: the CPU is offered for both stages, chosen or not it runs, anything else fails.
@Suite struct VNComputeDeviceTests {
    static func astronaut() throws -> VNImageRequestHandler {
        VNImageRequestHandler(url: try TestFiles.installed("astronaut.png"))
    }

    @Test func theCPUIsOfferedForBothStages() throws {
        let request = VNDetectFaceRectanglesRequest()
        let devices = try request.supportedComputeStageDevices
        #expect(Set(devices.keys) == [.main, .postProcessing])
        for (_, list) in devices {
            #expect(list.count == 1)
            // Code written for Apple's platforms switches over every kind of device; here only the CPU occurs.
            for device in list {
                switch device {
                case .cpu: break
                case .gpu, .neuralEngine: Issue.record("only the CPU is offered")
                }
            }
        }
        #expect(MLComputeDevice.allComputeDevices == devices[.main])
    }

    @Test func choosingTheCPURuns() throws {
        let request = VNDetectFaceRectanglesRequest()
        #expect(request.computeDevice(for: .main) == nil)
        let cpu = try #require(try request.supportedComputeStageDevices[.main]?.first)
        request.setComputeDevice(cpu, for: .main)
        request.setComputeDevice(cpu, for: .postProcessing)
        #expect(request.computeDevice(for: .main) == cpu)
        try Self.astronaut().perform([request])
        #expect(request.results?.count == 1)
        request.setComputeDevice(nil, for: .main)
        #expect(request.computeDevice(for: .main) == nil)
    }

    @Test func anUnknownStageFails() throws {
        let reported = Mutex<Int?>(nil)
        let request = VNDetectFaceRectanglesRequest { _, error in reported.withLock { $0 = (error as NSError?)?.code } }
        request.setComputeDevice(MLComputeDevice.allComputeDevices[0], for: VNComputeStage(rawValue: "VNComputeStageNone"))
        #expect { try Self.astronaut().perform([request]) } throws: { error in
            (error as NSError).domain == VNErrorDomain
                && (error as NSError).code == VNErrorCode.unsupportedComputeStage.rawValue
        }
        #expect(request.results == nil)
        #expect(reported.withLock { $0 } == VNErrorCode.unsupportedComputeStage.rawValue)
    }
}
