// swift-tools-version:6.0
// Wheel: a Swift runtime that embeds Lua 5.4 for scripted UI objects.
// The target graph follows ../shared/DESIGN.md: CLua → CLuaShim → Lua → Wheel → wheel-run,
// with WheelCore (pure state machines) beside the bridge.
import PackageDescription

let package = Package(
    name: "Wheel",
    products: [
        .library(name: "Lua", targets: ["Lua"]),
        .library(name: "WheelCore", targets: ["WheelCore"]),
        .library(name: "Wheel", targets: ["Wheel"]),
        .executable(name: "wheel-run", targets: ["wheel-run"]),
        .executable(name: "wheel-bench", targets: ["wheel-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Debian's liblua5.4-dev and lua-cjson-dev. pkg-config `lua5.4-cjson` requires `lua5.4`,
        // so one lookup yields both libraries and the include folder.
        .systemLibrary(
            name: "CLua",
            path: "Sources/CLua",
            pkgConfig: "lua5.4-cjson",
            providers: [.apt(["liblua5.4-dev", "lua-cjson-dev"])]
        ),
        // Every place where Lua may longjmp: trampolines, protected helpers, the allocator, hooks.
        .target(name: "CLuaShim", dependencies: ["CLua"]),
        .target(name: "Lua", dependencies: ["CLua", "CLuaShim"]),
        .target(name: "WheelCore"),
        .target(name: "Wheel", dependencies: ["Lua", "WheelCore"]),
        .executableTarget(
            name: "wheel-run",
            dependencies: ["Wheel", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // Benchmarks: Wheel against the same work written with the raw C API, in one process.
        .target(name: "CLuaReference", dependencies: ["CLua"], path: "Benchmarks/CLuaReference"),
        .executableTarget(
            name: "wheel-bench",
            dependencies: ["Lua", "CLua", "CLuaReference", "Wheel"],
            path: "Benchmarks/wheel-bench"
        ),

        .testTarget(name: "LuaTests", dependencies: ["Lua", "CLua"]),
        .testTarget(name: "WheelCoreTests", dependencies: ["WheelCore"]),
        .testTarget(name: "WheelTests", dependencies: ["Wheel", "Lua", "CLua"]),
        .testTarget(name: "WheelRunTests", dependencies: ["Wheel"]),
    ]
)
