/// The version `todo --version` and `todo-serve --version` print (docs/INSTALL.md, "Versions").
/// Fixed when the program is built, so that nothing runs git, or anything else, to answer.
public enum TodoVersion {
    /// The source version and `+dev`: what every build outside `make dist` says. `make dist`
    /// rewrites the literal on the next line in its own copy of the sources
    /// (scripts/dist/version.sh computes it from git), never this file.
    public static var text: String { "0.1.0+dev" }
}
