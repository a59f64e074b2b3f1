# tfcc_add_model(NAME MODEL [STATIC | SHARED] [OPTIONS tfcc-option...]
#                [DEPENDS file...] [OUTPUT_DIRECTORY dir])
#
# Compiles MODEL (.mlir, .onnx or .tflite; relative to the current source
# folder) with tfcc at build time into the library target NAME: a static
# archive with the runtime inside (default) or a shared library (SHARED).
# Its header NAME.h, whose functions are NAME_predict, NAME_create, ..., is
# on NAME's include path, so `target_link_libraries(app PRIVATE NAME)` and
# `#include "NAME.h"` are all a program needs. OPTIONS go to tfcc as given
# (--precision=mixed_bf16, --cpu=..., --dim-bound=...; not -o, --name or
# --emit, which this function sets); DEPENDS are files the build depends on
# besides MODEL (say a --weights checkpoint). The outputs go to
# OUTPUT_DIRECTORY (default: CMAKE_CURRENT_BINARY_DIR/tfcc_models/NAME).
#
# Needs TFCC_EXECUTABLE (tfccConfig.cmake sets it; in tfcc's own build the
# tfcc target) and TFCC_MODEL_DEPENDS (what a model's build waits for).
function(tfcc_add_model name model)
  cmake_parse_arguments(PARSE_ARGV 2 arg "STATIC;SHARED" "OUTPUT_DIRECTORY"
                        "OPTIONS;DEPENDS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tfcc_add_model(${name}): unknown arguments "
      "'${arg_UNPARSED_ARGUMENTS}' (STATIC, SHARED, OPTIONS, DEPENDS, OUTPUT_DIRECTORY)")
  endif()
  if(arg_STATIC AND arg_SHARED)
    message(FATAL_ERROR "tfcc_add_model(${name}): STATIC and SHARED exclude each other")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "tfcc_add_model(${name}): NAME is the C prefix of the "
      "model's functions: letters, digits and underscores, not starting with a digit")
  endif()
  foreach(option IN LISTS arg_OPTIONS)
    if(option MATCHES "^(-o|--name|--emit|-name|-emit)(=|$)")
      message(FATAL_ERROR "tfcc_add_model(${name}): OPTIONS cannot hold '${option}': "
        "the output, its name and its kind are NAME and STATIC / SHARED")
    endif()
  endforeach()
  get_filename_component(model_path "${model}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model_path}")
    message(FATAL_ERROR "tfcc_add_model(${name}): no model file '${model_path}'")
  endif()
  if(arg_OUTPUT_DIRECTORY)
    get_filename_component(dir "${arg_OUTPUT_DIRECTORY}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/tfcc_models/${name}")
  endif()
  if(arg_SHARED)
    set(kind so)
    set(type SHARED)
  else()
    set(kind static)
    set(type STATIC)
  endif()
  if(arg_SHARED)
    set(library "${dir}/${name}.so")
  else()
    set(library "${dir}/${name}.a")
  endif()
  # The include folder must exist when the build system is generated.
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${library}" "${dir}/${name}.h"
    COMMAND ${TFCC_EXECUTABLE} "${model_path}" --name=${name} --emit=${kind}
            ${arg_OPTIONS} -o "${library}"
    DEPENDS "${model_path}" ${TFCC_MODEL_DEPENDS} ${arg_DEPENDS}
    COMMENT "tfcc ${model} -> ${name}.h, ${library}"
    VERBATIM)
  add_custom_target(${name}_tfcc_model DEPENDS "${library}" "${dir}/${name}.h")
  add_library(${name} ${type} IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES
    IMPORTED_LOCATION "${library}"
    INTERFACE_INCLUDE_DIRECTORIES "${dir}")
  if(arg_SHARED)
    set_target_properties(${name} PROPERTIES IMPORTED_SONAME "${name}.so")
  else()
    # The runtime inside the archive uses libm and POSIX threads.
    find_package(Threads REQUIRED)
    set_target_properties(${name} PROPERTIES
      INTERFACE_LINK_LIBRARIES "Threads::Threads;m")
  endif()
  add_dependencies(${name} ${name}_tfcc_model)
endfunction()
