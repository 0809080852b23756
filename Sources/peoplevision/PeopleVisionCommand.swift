import ArgumentParser
import PVBench

@main
struct PeopleVisionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peoplevision",
        abstract: "People analysis on images: faces, bodies, hands and person masks, as Apple's Vision does it.",
        subcommands: [AnalyzeCommand.self, SegmentCommand.self, MattesCommand.self, InstancesCommand.self, FacesCommand.self, PoseCommand.self, HandsCommand.self, GreetCommand.self, SyntheticVideoCommand.self]
            + serviceCommands + [ModelsCommand.self, InspectCommand.self, BenchCommand.self])

    /// `serve`, in builds with the package trait `Serve` (`make` enables it).
    #if Serve
    static let serviceCommands: [any ParsableCommand.Type] = [ServeCommand.self]
    #else
    static let serviceCommands: [any ParsableCommand.Type] = []
    #endif
}
