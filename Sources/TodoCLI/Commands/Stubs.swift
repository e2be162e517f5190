import ArgumentParser
struct LogCommand: ParsableCommand {}
struct ImportCommand: ParsableCommand {}
