#if canImport(Glibc)
import Glibc
#endif

import SeerImage

/// Expands command-line paths: a directory stands for every photo below it (recursively, sorted,
/// hidden entries skipped); anything else is passed through as given, to fail or succeed on its own.
/// A directory with no photo below it is passed through too, so it is reported (`unreadable`: a
/// directory is not a photo) rather than silently giving nothing.
///
/// In a directory a file counts as a photo when its first bytes are an image signature or its name
/// has an image extension, so a truncated `x.jpg` or a text file named `y.png` is still reported,
/// while a README or a ground-truth `.txt` beside the photos is not. Decoding never looks at names.
///
/// Names that are not UTF-8 (any bytes but `/` and NUL are a valid Linux file name) keep their
/// bytes: ``Input`` opens the file by them, and reports the name with each invalid byte shown as
/// U+FFFD.
enum Inputs {
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "gif", "webp", "heic", "heif", "avif", "bmp", "tif", "tiff",
    ]

    static func looksLikePhoto(_ path: String) -> Bool {
        if let dot = path.lastIndex(of: "."), imageExtensions.contains(path[path.index(after: dot)...].lowercased()) {
            return true
        }
        return ImageDecoder.sniff(contentsOf: path) != nil
    }

    /// The names of the expanded inputs (see ``entries(_:keeping:)``).
    static func expand(_ paths: [String], keeping wanted: (String) -> Bool = looksLikePhoto) -> [String] {
        entries(paths, keeping: wanted).map(\.name)
    }

    /// The expanded inputs: each one's name and, when the name is not UTF-8, its bytes.
    static func entries(_ paths: [String], keeping wanted: (String) -> Bool = looksLikePhoto) -> [Input] {
        paths.flatMap { path -> [Input] in
            guard path != "-" else { return [Input(name: path)] }
            let raw = RawPath.argument(path) ?? Array(path.utf8)
            var st = stat()
            guard RawPath.status(raw, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return [Input(raw)] }
            let found = files(under: raw, keeping: wanted)
            return found.isEmpty ? [Input(raw)] : found
        }
    }

    private static func files(under directory: [UInt8], keeping wanted: (String) -> Bool) -> [Input] {
        guard let dir = RawPath.withCString(directory, { opendir($0) }) else { return [Input(directory)] }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name.first != UInt8(ascii: ".") { names.append(name) }
        }
        let base = directory.last == UInt8(ascii: "/") ? Array(directory.dropLast()) : directory
        return names.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { name -> [Input] in
            let path = base + [UInt8(ascii: "/")] + name
            var st = stat()
            guard RawPath.status(path, &st) == 0 else { return [Input(path)] }
            if (st.st_mode & S_IFMT) == S_IFDIR { return files(under: path, keeping: wanted) }
            let input = Input(path)
            guard (st.st_mode & S_IFMT) == S_IFREG else { return [] }
            if wanted(input.name) { return [input] }
            return input.raw != nil && (try? input.withPath { wanted($0) }) == true ? [input] : []
        }
    }
}

/// File names as bytes: Linux allows any bytes but `/` and NUL, a Swift `String` holds only valid
/// Unicode, and `CommandLine.arguments` repairs invalid UTF-8 (each bad byte becomes U+FFFD).
enum RawPath {
    /// The bytes of the command-line argument `text` came from, when they are not valid UTF-8;
    /// `nil` when `text` is the argument exactly.
    static func argument(_ text: String) -> [UInt8]? {
        guard text.unicodeScalars.contains("\u{FFFD}") else { return nil }
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            if String(validating: bytes, as: UTF8.self) == nil, String(decoding: bytes, as: UTF8.self) == text { return bytes }
        }
        return nil
    }

    static func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// `stat(2)` of the path whose bytes are `bytes`.
    static func status(_ bytes: [UInt8], _ st: inout stat) -> Int32 {
        withCString(bytes) { statPath($0, &st) }
    }
}

/// `stat(2)`, where a member named like it does not hide it.
private func statPath(_ path: UnsafePointer<CChar>, _ st: inout stat) -> Int32 {
    stat(path, &st)
}

extension Input {
    /// An input from a path's bytes: named by them when they are UTF-8, else keeping them.
    init(_ bytes: [UInt8]) {
        if let text = String(validating: bytes, as: UTF8.self) {
            self.init(name: text)
        } else {
            self.init(name: String(decoding: bytes, as: UTF8.self), raw: bytes)
        }
    }

    /// Runs `body` with a path that opens this input's file. For a name that is not UTF-8, the file
    /// is opened (without blocking, as the decoder opens files) by its bytes and reached through
    /// `/proc/self/fd`; errors about that path are reported with the input's name.
    func withPath<T>(_ body: (String) throws -> T) throws -> T {
        guard let raw else { return try body(name) }
        let fd = RawPath.withCString(raw) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard fd >= 0 else {
            throw ImageError(.unreadable, "cannot open: \(String(cString: strerror(errno)))", source: name)
        }
        defer { close(fd) }
        do {
            return try body("/proc/self/fd/\(fd)")
        } catch let error as ImageError {
            throw error.from(name)
        }
    }
}
