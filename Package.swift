// swift-tools-version:6.0
// Wheel: a Swift runtime that embeds Lua 5.4 for scripted UI objects.
// The target graph follows ../shared/DESIGN.md: CLua → CLuaShim → Lua → Wheel → WheelTerminal → wheel-run,
// with WheelCore (pure state machines) beside the bridge, and WheelServer (a loopback HTTP
// server for fixtures and fault injection) beside the runtime.
import PackageDescription

let package = Package(
    name: "Wheel",
    products: [
        .library(name: "Lua", targets: ["Lua"]),
        .library(name: "WheelCore", targets: ["WheelCore"]),
        .library(name: "Wheel", targets: ["Wheel"]),
        .library(name: "WheelServer", targets: ["WheelServer"]),
        .executable(name: "wheel-run", targets: ["wheel-run"]),
        .executable(name: "wheel-bench", targets: ["wheel-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
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
        .target(
            name: "Wheel",
            dependencies: [
                "Lua", "WheelCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The loopback HTTP/1.1 server that serves fixtures and injects faults.
        .target(
            name: "WheelServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Debian's libncurses-dev (the wide-character build), behind a few C functions. Not
        // through pkg-config: its flags (-D_XOPEN_SOURCE=600) are ones SwiftPM refuses; the
        // header sits in the standard include path and the module map links ncursesw.
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses"),
        // The text frames of wheel-run and its interactive terminal UI.
        .target(name: "WheelTerminal", dependencies: ["Wheel", "WheelCore", "CNcurses"]),
        .executableTarget(
            name: "wheel-run",
            dependencies: ["Wheel", "WheelTerminal", "WheelServer", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // Benchmarks: Wheel against the same work written with the raw C API, in one process.
        .target(name: "CLuaReference", dependencies: ["CLua"], path: "Benchmarks/CLuaReference"),
        .executableTarget(
            name: "wheel-bench",
            dependencies: ["Lua", "CLua", "CLuaReference", "Wheel", "WheelServer"],
            path: "Benchmarks/wheel-bench"
        ),

        .testTarget(name: "LuaTests", dependencies: ["Lua", "CLua"]),
        .testTarget(name: "WheelCoreTests", dependencies: ["WheelCore"]),
        .testTarget(name: "WheelTests", dependencies: ["Wheel", "Lua", "CLua", "WheelServer"]),
        .testTarget(
            name: "WheelServerTests",
            dependencies: ["WheelServer", .product(name: "AsyncHTTPClient", package: "async-http-client")]
        ),
        .testTarget(name: "WheelRunTests", dependencies: ["Wheel"]),
        .testTarget(name: "WheelTerminalTests", dependencies: ["WheelTerminal", "Wheel", "WheelCore"]),
    ]
)
