// swift-tools-version:6.1
//
// PeopleVision: Apple's Vision people requests, rebuilt in Swift for Linux.
//
// Layers (see Documentation/Architecture.md), data flowing upward:
//   C libraries (Debian packages)  CXNNPack, CLibJPEG, CLibPNG, CLibHEIF, CLibWebP, CFFmpeg, CImageCodecs and
//                                  CVideoCodecs (shims)
//   own C kernels                  CImageKernels (imaging), CRenderKernels (the renderer's 8-bit paths),
//                                  CInferenceKernels (convolutions), CThreads (affinity)
//   errors                         PVCore (the engine's one error type)
//   threads                        PVThreads (usable cores, the worker pool every layer runs side by side on)
//   inference                      PVTFLite (model reader) -> PVInference (executor)
//   imaging                        PVImaging -> PVRender (image recipes and their band renderer)
//   perception                     PVPerception
//   public API                     PeopleVision (the module users import), and Apple's module names over it
//                                  (Vision, CoreImage, CoreVideo, CoreMedia, AVFoundation, CoreML, simd, ImageIO,
//                                  CoreGraphics: thin re-exports, so Apple code keeps its imports; CoreImageSubmodules
//                                  declares the clang submodule CoreImage.CIFilterBuiltins)
//   service                        PVServe (the HTTP service of `peoplevision serve`: Hummingbird and its packages; built
//                                  with the package trait `Serve` only, so that users of the library fetch none of them)
//   tools                          PVBench (benchmarks and the model commands, over the public API and the engine;
//                                  imported by the CLI only), peoplevision (CLI: the public API, PVImaging for image
//                                  and video files, PVThreads for the threads of `--jsonl` and `greet`, PVBench for
//                                  `bench`, `models` and `inspect`, PVServe for `serve`; starts no threads of its own)
//
// Compile-time flag: PEOPLEVISION_INTERNAL_CHECKS turns on costly self-checks
// (per-op shape checks, NaN scans) in the engine modules.
import PackageDescription

let engine: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Dependencies of the HTTP service only (the trait `Serve`).
let serve: TargetDependencyCondition? = .when(traits: ["Serve"])

/// Apple's framework names, each a module that re-exports `PeopleVision` (Sources/AppleModules/<name>).
let appleModules = ["Vision", "CoreImage", "CoreVideo", "CoreMedia", "AVFoundation", "CoreML", "simd", "ImageIO", "CoreGraphics"]

let package = Package(
    name: "PeopleVision",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PeopleVision", targets: ["PeopleVision"]),
    ] + appleModules.map { .library(name: $0, targets: [$0]) } + [
        // For test targets whose files import Swift Testing beside CoreImage or CoreGraphics (see the porting guide).
        .library(name: "TestingOverlays", targets: ["_Testing_CoreImage", "_Testing_CoreGraphics"]),
        .executable(name: "peoplevision", targets: ["peoplevision"]),
    ],
    traits: [
        .trait(
            name: "Serve",
            description: "Build `peoplevision serve` (target PVServe) and its packages: Hummingbird, swift-log, swift-metrics, swift-prometheus, swift-service-lifecycle, SwiftNIO."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation --target PeopleVision` (Sources/PeopleVision/PeopleVision.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The HTTP service (`peoplevision serve`, target PVServe), used only when the trait Serve is enabled (`make`
        // enables it): a package that uses the PeopleVision product neither fetches nor builds these
        // (Documentation/Architecture.md, "The HTTP service").
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // C libraries, all from Debian packages installed by scripts/bootstrap.
        .systemLibrary(name: "CXNNPack", providers: [.apt(["libxnnpack-dev", "libpthreadpool-dev"])]),
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CLibHEIF", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CLibWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]),
        // zlib (libpng's own dependency) writes the PNG bands' deflate streams and checksums.
        .target(name: "CImageCodecs", dependencies: ["CLibJPEG", "CLibPNG"], linkerSettings: [.linkedLibrary("z")]),
        .target(
            name: "CVideoCodecs", dependencies: ["CFFmpeg"],
            linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"), .linkedLibrary("avutil")]),
        .target(name: "CImageKernels"),
        .target(name: "CRenderKernels"),
        .target(name: "CInferenceKernels", dependencies: ["CXNNPack"]),
        .target(name: "CThreads"),

        // Engine.
        .target(name: "PVCore", swiftSettings: engine),
        .target(name: "PVThreads", dependencies: ["PVCore", "CThreads"], swiftSettings: engine),
        .target(name: "PVTFLite", dependencies: ["PVCore"], swiftSettings: engine),
        .target(
            name: "PVInference", dependencies: ["PVCore", "PVTFLite", "PVThreads", "CXNNPack", "CInferenceKernels"], swiftSettings: engine),
        .target(
            name: "PVImaging",
            dependencies: ["PVCore", "PVThreads", "CImageCodecs", "CVideoCodecs", "CImageKernels", "CLibJPEG", "CLibPNG", "CLibHEIF", "CLibWebP"],
            swiftSettings: engine),
        .target(name: "PVRender", dependencies: ["PVCore", "PVThreads", "PVImaging", "CRenderKernels"], swiftSettings: engine),
        .target(name: "PVPerception", dependencies: ["PVCore", "PVThreads", "PVInference", "PVImaging"], swiftSettings: engine),

        // Public API.
        .target(name: "PeopleVision", dependencies: ["PVCore", "PVPerception", "PVImaging", "PVRender"], swiftSettings: engine),

        // Apple's module names (Documentation/Architecture.md, "Apple's module names").
        .target(name: "CoreImageSubmodules", path: "Sources/AppleModules/CoreImageSubmodules"),
    ] + appleModules.map { name in
        .target(
            name: name, dependencies: ["PeopleVision"] + (name == "CoreImage" ? ["CoreImageSubmodules"] : []),
            path: "Sources/AppleModules/\(name)")
    } + [
        // The cross-import overlays Swift Testing looks for when a file imports it beside CoreImage or CoreGraphics.
        .target(name: "_Testing_CoreImage", path: "Sources/AppleModules/_Testing_CoreImage"),
        .target(name: "_Testing_CoreGraphics", path: "Sources/AppleModules/_Testing_CoreGraphics"),

        // Tools.
        .target(name: "CAllocatorTuning"),
        .target(
            name: "PVBench",
            dependencies: [
                "PeopleVision", "PVInference", "PVTFLite", "PVImaging", "PVPerception",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: engine),
        .target(
            name: "PVServe",
            dependencies: [
                "PVCore", "PVThreads", "PVImaging",
                .product(name: "Hummingbird", package: "hummingbird", condition: serve),
                .product(name: "Logging", package: "swift-log", condition: serve),
                .product(name: "Metrics", package: "swift-metrics", condition: serve),
                .product(name: "Prometheus", package: "swift-prometheus", condition: serve),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: serve),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: serve),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: serve),
                .product(name: "NIOCore", package: "swift-nio", condition: serve),
                .product(name: "NIOPosix", package: "swift-nio", condition: serve),
            ],
            resources: [.copy("Resources")],
            swiftSettings: engine),
        .executableTarget(
            name: "peoplevision",
            dependencies: [
                "PeopleVision", "PVCore", "PVImaging", "PVThreads", "PVBench", .target(name: "PVServe", condition: serve), "CAllocatorTuning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: engine),

        // Examples: Apple's sample code, compiled unchanged, imports included.
        .executableTarget(name: "PhotoGreeting", dependencies: ["Vision", "CoreImage"], path: "Examples/PhotoGreeting",
                          exclude: ["README.md"]),
        .executableTarget(name: "FacePoseBackground", dependencies: ["Vision", "CoreImage"], path: "Examples/FacePoseBackground",
                          exclude: ["README.md"]),
        // Our own examples of the WWDC19 matte workflows, with Apple's API and imports only.
        .executableTarget(name: "SkinSmoothing", dependencies: ["AVFoundation", "CoreImage"], path: "Examples/SkinSmoothing",
                          exclude: ["README.md"]),
        .executableTarget(name: "HairRecolor", dependencies: ["AVFoundation", "CoreImage"], path: "Examples/HairRecolor",
                          exclude: ["README.md"]),
        // Our own example of Vision's Swift API (iOS 18), in the manner of Apple's selfie-analysis sample.
        .executableTarget(name: "SelfieAnalysis", dependencies: ["Vision", "CoreImage"], path: "Examples/SelfieAnalysis",
                          exclude: ["README.md"]),

        // Fuzz targets (Fuzz/README.md): replay tools in this build, libFuzzer binaries in Fuzz/run's sanitized one.
        .target(name: "FuzzDriver", path: "Fuzz/Driver"),
        .executableTarget(
            name: "FuzzImageDecoders", dependencies: ["FuzzDriver", "PVImaging"], path: "Fuzz/ImageDecoders", exclude: ["Regressions"]),
        .executableTarget(
            name: "FuzzModelReader", dependencies: ["FuzzDriver", "PVTFLite"], path: "Fuzz/ModelReader", exclude: ["Regressions"]),

        // Tests, one target per layer.
        .target(name: "PVTestSupport", dependencies: ["PVInference", "PVImaging"], path: "Tests/PVTestSupport"),
        .testTarget(name: "PVTFLiteTests", dependencies: ["PVTFLite", "PVTestSupport"]),
        .testTarget(name: "PVInferenceTests", dependencies: ["PVInference", "PVTFLite", "PVTestSupport", "CInferenceKernels", "CXNNPack"]),
        .testTarget(name: "PVImagingTests", dependencies: ["PVImaging", "PVTestSupport"]),
        .testTarget(name: "PVPerceptionTests", dependencies: ["PVPerception", "PVTestSupport"]),
        .testTarget(name: "PVThreadsTests", dependencies: ["PVThreads", "PVCore"]),
        .testTarget(
            name: "ServeTests",
            dependencies: [
                "peoplevision", .target(name: "PVServe", condition: serve), "PVTestSupport", "PVImaging", "PVCore",
                .product(name: "Hummingbird", package: "hummingbird", condition: serve),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: serve),
                .product(name: "Logging", package: "swift-log", condition: serve),
            ]),
        .testTarget(name: "CLITests", dependencies: ["peoplevision", "PVTestSupport", "PVImaging", "PVPerception", "CAllocatorTuning"]),
        .testTarget(
            name: "PeopleVisionTests",
            dependencies: ["PeopleVision", "PhotoGreeting", "SelfieAnalysis", "SkinSmoothing", "HairRecolor", "PVTestSupport", "PVImaging",
                "PVRender", "PVPerception", "PVCore"]),
        .testTarget(
            name: "PortingTests",
            dependencies: appleModules.map { .target(name: $0) }
                + ["_Testing_CoreImage", "_Testing_CoreGraphics", "PVTestSupport"],
            exclude: ["README.md"]),
    ]
)
