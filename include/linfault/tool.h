// <linfault/tool.h>: the `linfault` command-line tool as a function. Public API.
//
// linfault_add_tool(NAME TARGETS <libraries>) generates a main() that calls tool_main(argc, argv,
// "NAME"): a tool with every command of `linfault` (run, detect, replay, minimize, triage,
// report, targets, check, localize, gen, verify, merge) that also knows the targets its libraries
// register (LINFAULT_REGISTER_TARGET, <linfault/target.h>). A program of your own may call it
// too.
//
// Returns the exit code (0 success or linearizable, 1 violation, 2 unknown, 64 usage, 65 bad
// input, 66 input cannot be opened, 70 internal error); errors are printed as one line,
// "NAME: FILE:LINE: problem". When a command's --timeout (counted from the call) or
// --memory-limit is reached where no algorithm can stop by itself, e.g. while reading its input,
// the process ends with exit 2 without returning. The library replaces the global operator new
// and delete (to count the heap for --memory-limit): a program that replaces them too cannot link
// it. `tool_name` is used in messages, in --help and in the test cases
// the tool writes, so that files name the tool that can replay them.
//
// Thread-safety: call it once per process, from one thread.

#ifndef LINFAULT_PUBLIC_TOOL_H_
#define LINFAULT_PUBLIC_TOOL_H_

#include <string_view>

namespace linfault {

int tool_main(int argc, char** argv, std::string_view tool_name = "linfault");

}  // namespace linfault

#endif  // LINFAULT_PUBLIC_TOOL_H_
