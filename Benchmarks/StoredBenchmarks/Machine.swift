import Foundation

/// The machine a run measured, printed at the top and stored in the JSON so figures from different
/// machines are never compared blindly.
///
/// ```swift
/// let machine = Machine.current()
/// machine.summary  //=> "2 cores (AMD EPYC), 23.5 GiB, Linux 6.18.44 x86_64, /tmp on ext4, Swift 6.3.1, release"
/// ```
struct Machine: Codable, Sendable {
    var cores: Int
    var activeCores: Int
    var processor: String
    var memoryBytes: UInt64
    var kernel: String
    var temporaryDirectory: String
    var temporaryFileSystem: String
    var toolchain: String
    var buildConfiguration: String

    static func current() -> Machine {
        let temporary = FileManager.default.temporaryDirectory.path
        return Machine(
            cores: ProcessInfo.processInfo.processorCount,
            activeCores: ProcessInfo.processInfo.activeProcessorCount,
            processor: cpuModel(),
            memoryBytes: ProcessInfo.processInfo.physicalMemory,
            kernel: kernelDescription(),
            temporaryDirectory: temporary,
            temporaryFileSystem: fileSystemName(at: temporary),
            toolchain: toolchainVersion(),
            buildConfiguration: isDebugBuild ? "debug" : "release"
        )
    }

    var summary: String {
        let memory = String(format: "%.1f GiB", Double(memoryBytes) / 1_073_741_824)
        return "\(activeCores) of \(cores) cores (\(processor)), \(memory), \(kernel), "
            + "\(temporaryDirectory) on \(temporaryFileSystem), \(toolchain), \(buildConfiguration) build"
    }

    static var isDebugBuild: Bool {
        #if DEBUG
            true
        #else
            false
        #endif
    }

    private static func kernelDescription() -> String {
        var names = utsname()
        uname(&names)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return "\(text(names.sysname)) \(text(names.release)) \(text(names.machine))"
    }

    private static func cpuModel() -> String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line?.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
    }

    /// The file system type from `statfs`: it decides what an fsync costs.
    static func fileSystemName(at path: String) -> String {
        // Glibc's Swift module leaves out <sys/statfs.h>; look the C function up instead. `f_type`
        // is the first field of `struct statfs`, a C `long`, on every 64- and 32-bit Linux ABI.
        typealias StatfsFunction = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(nil, "statfs") else { return "unknown (no statfs)" }
        let statfsFunction = unsafeBitCast(symbol, to: StatfsFunction.self)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)  // struct statfs is 120 bytes
        defer { buffer.deallocate() }
        guard statfsFunction(path, buffer) == 0 else { return "unknown (statfs failed: errno \(errno))" }
        let fileSystemType = buffer.load(as: Int.self)
        let knownTypes: [Int: String] = [
            0xEF53: "ext4", 0x0102_1994: "tmpfs", 0x794C_7630: "overlayfs", 0x5846_5342: "xfs",
            0x9123_683E: "btrfs", 0x2FC1_2FC1: "zfs", 0x6969: "nfs", 0x6573_5546: "fuse",
            0x0102_1997: "9p", 0x6A65_6A63: "virtiofs", 0xF2F5_2010: "f2fs",
        ]
        return knownTypes[fileSystemType] ?? "type 0x" + String(fileSystemType, radix: 16)
    }

    /// The compiler that built this binary, and the `swift` on the PATH when there is one.
    private static func toolchainVersion() -> String {
        #if compiler(>=6.3)
            let compiled = "Swift 6.3+"
        #elseif compiler(>=6.2)
            let compiled = "Swift 6.2"
        #elseif compiler(>=6.1)
            let compiled = "Swift 6.1"
        #else
            let compiled = "Swift 6.0"
        #endif
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return compiled }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let firstLine = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
        guard process.terminationStatus == 0, let firstLine, !firstLine.isEmpty else { return compiled }
        // "Swift version 6.3.1 (swift-6.3.1-RELEASE)" -> "Swift 6.3.1 (swift-6.3.1-RELEASE)"
        return firstLine.replacingOccurrences(of: "Swift version ", with: "Swift ")
    }
}
