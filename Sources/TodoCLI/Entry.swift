public enum TodoCLI { public static func main() {} }
