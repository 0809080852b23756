import ArgumentParser
import PVBench

@main
struct PeopleVisionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peoplevision",
        abstract: "People analysis on images: faces, bodies, hands and person masks, as Apple's Vision does it.",
        subcommands: [AnalyzeCommand.self, SegmentCommand.self, MattesCommand.self, InstancesCommand.self, FacesCommand.self, PoseCommand.self, HandsCommand.self, GreetCommand.self, ModelsCommand.self, InspectCommand.self, BenchCommand.self])
}
