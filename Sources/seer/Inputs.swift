#if canImport(Glibc)
import Glibc
#endif

import SeerImage

/// Expands command-line paths: a directory stands for every photo below it (recursively, sorted,
/// hidden entries skipped); anything else is passed through as given, to fail or succeed on its own.
///
/// In a directory a file counts as a photo when its first bytes are an image signature or its name
/// has an image extension, so a truncated `x.jpg` or a text file named `y.png` is still reported,
/// while a README or a ground-truth `.txt` beside the photos is not. Decoding never looks at names.
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

    static func expand(_ paths: [String], keeping wanted: (String) -> Bool = looksLikePhoto) -> [String] {
        paths.flatMap { path -> [String] in
            var st = stat()
            guard path != "-", stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return [path] }
            return files(under: path, keeping: wanted)
        }
    }

    private static func files(under directory: String, keeping wanted: (String) -> Bool) -> [String] {
        guard let dir = opendir(directory) else { return [directory] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return names.sorted().flatMap { name -> [String] in
            let path = "\(base)/\(name)"
            var st = stat()
            guard stat(path, &st) == 0 else { return [path] }
            if (st.st_mode & S_IFMT) == S_IFDIR { return files(under: path, keeping: wanted) }
            return (st.st_mode & S_IFMT) == S_IFREG && wanted(path) ? [path] : []
        }
    }
}
