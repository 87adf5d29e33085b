/// The version of the Seer engine, reported by `seer --version`.
public let seerVersion = "0.1.0"
