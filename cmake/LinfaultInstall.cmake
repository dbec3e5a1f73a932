# `cmake --install BUILD --prefix P` installs the package:
#   P/bin/linfault, P/bin/linfault-structure (when built with Clang)
#   P/include/linfault/*.h              the public API (target.h, check.h, gtest.h, recorder.h,
#                                       tool.h)
#   P/include/linfault/internal/<dir>/  the internal headers the public ones include
#   P/lib/liblinfault_*.a               the libraries
#   P/lib/cmake/linfault/               the CMake package: imported targets linfault::<x> and the
#                                       functions linfault_add_target, linfault_add_tool and
#                                       linfault_add_test (cmake/LinfaultTargets.cmake)
# so that another project can say find_package(linfault CONFIG REQUIRED).

include(CMakePackageConfigHelpers)
set(LINFAULT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/linfault)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/linfault/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/linfault
  FILES_MATCHING PATTERN "*.h")
foreach(dir history spec dpct structure_tree targets detect localize minimize report tool)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/linfault/internal/${dir}
    FILES_MATCHING PATTERN "*.h"
    PATTERN "*_test.h" EXCLUDE
    PATTERN "*test_util.h" EXCLUDE
    PATTERN "test_objects.h" EXCLUDE
    PATTERN "test_support.h" EXCLUDE
    PATTERN "clang_support.h" EXCLUDE
    PATTERN "testdata" EXCLUDE
    PATTERN "exhaustive" EXCLUDE
    PATTERN "tool" EXCLUDE)
endforeach()

install(EXPORT linfault-targets
  NAMESPACE linfault::
  DESTINATION ${LINFAULT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/linfaultConfig.cmake.in
  ${PROJECT_BINARY_DIR}/linfaultConfig.cmake
  INSTALL_DESTINATION ${LINFAULT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/linfaultConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/linfaultConfig.cmake
  ${PROJECT_BINARY_DIR}/linfaultConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/LinfaultTargets.cmake
  ${PROJECT_SOURCE_DIR}/cmake/LinfaultStructureTrees.cmake
  DESTINATION ${LINFAULT_CMAKE_DIR})

# A Debian package of the same files: `cpack -G DEB --config BUILD/CPackConfig.cmake`.
set(CPACK_PACKAGE_NAME linfault)
set(CPACK_PACKAGE_VENDOR "linfault")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Turns a concurrency bug in a concurrent data structure into a tiny, replayable test case")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "linfault developers")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libboost-context-dev, libboost-dev, nlohmann-json3-dev, libsimdjson-dev, libcli11-dev, libgtest-dev, libclang-cpp14")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
