import GitKit
import TodoCore
