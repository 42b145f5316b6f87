# Writes a C++ source that returns the contents of a text file, so the file is
# compiled into the binary and can never disagree with its shipped copy.
# Run at build time: cmake -DINPUT=<file> -DOUTPUT=<.cc> -DHEADER=<include>
#   -DNAMESPACE=<ns> -DFUNCTION=<name> -P embed_text.cmake
foreach(arg INPUT OUTPUT HEADER NAMESPACE FUNCTION)
  if(NOT DEFINED ${arg})
    message(FATAL_ERROR "embed_text.cmake: -D${arg}=... is required")
  endif()
endforeach()

file(READ "${INPUT}" content)
# The text goes into a raw string literal; it must not contain the delimiter.
set(delimiter "podsim_embed")
string(FIND "${content}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "embed_text.cmake: ${INPUT} contains \")${delimiter}\"")
endif()

file(WRITE "${OUTPUT}"
"// Generated from ${INPUT} by embed_text.cmake. Do not edit.
#include \"${HEADER}\"

namespace ${NAMESPACE} {

std::string_view ${FUNCTION}() {
  static constexpr std::string_view kText = R\"${delimiter}(${content})${delimiter}\";
  return kText;
}

}  // namespace ${NAMESPACE}
")
