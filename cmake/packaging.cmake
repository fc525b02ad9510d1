# Debian packages (scripts/package runs `cpack -G DEB` in build/): one package per install
# component that exists.
#   cli     bloomcodec_<version>_amd64.deb: the command line, bloomcodec(1), bash and zsh completion
#   dev     libbloomcodec-dev_<version>_amd64.deb: the static library, its public headers, the
#           CMake package (find_package(bloomcodec))
#   python  python3-bloomcodec_<version>_amd64.deb: the Python module, when the tree has one
# Every package carries /usr/share/doc/<package>/copyright and changelog.gz (a native package:
# the version has no Debian revision). Runtime dependencies come from dpkg-shlibdeps; the dev
# package depends on the -dev packages a static link against the library needs (the
# find_dependency and pkg_check_modules lines of cmake/bloomcodecConfig.cmake.in).
set(bloomcodec_deb_names cli bloomcodec dev libbloomcodec-dev python python3-bloomcodec)

# The changelog's first entry names the version the packages carry.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/debian/changelog bloomcodec_changelog_top LIMIT_COUNT 1)
if(NOT bloomcodec_changelog_top MATCHES "^bloomcodec \\(${PROJECT_VERSION}\\) ")
  message(WARNING "cmake/debian/changelog does not start with version ${PROJECT_VERSION} "
    "(project()); add an entry for it before packaging")
endif()
set(bloomcodec_changelog_gz ${CMAKE_BINARY_DIR}/debian/changelog.gz)
add_custom_command(OUTPUT ${bloomcodec_changelog_gz}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/debian
  COMMAND gzip -9 -n -c ${CMAKE_CURRENT_LIST_DIR}/debian/changelog > ${bloomcodec_changelog_gz}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/debian/changelog VERBATIM)
add_custom_target(bloomcodec_debian_changelog ALL DEPENDS ${bloomcodec_changelog_gz})

# The static library as Debian ships one (dh_strip's flags): without its debug sections and
# compiler notes, deterministic (cpack strips the executables; it leaves an archive alone).
install(CODE [[
  if(CMAKE_INSTALL_DO_STRIP)
    file(GLOB_RECURSE archives "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/*/libbloomcodec.a")
    foreach(archive IN LISTS archives)
      execute_process(COMMAND strip --strip-debug --remove-section=.comment
        --remove-section=.note --enable-deterministic-archives ${archive}
        COMMAND_ERROR_IS_FATAL ANY)
    endforeach()
  endif()]] COMPONENT dev)
# The command line without the compilers' notes either (cpack's strip keeps .comment).
install(CODE [[
  if(CMAKE_INSTALL_DO_STRIP)
    execute_process(COMMAND strip --remove-section=.comment
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/bloomcodec" COMMAND_ERROR_IS_FATAL ANY)
  endif()]] COMPONENT cli)

# What the packages hold, built by scripts/package (and nothing else: no test).
add_custom_target(bloomcodec_packaged)
add_dependencies(bloomcodec_packaged bloomcodec bloomcodec_cli bloomcodec_cli_extras
  bloomcodec_debian_changelog)

# Runs when the top directory has been read, so that every install rule (a python/ folder
# added after this file is included, too) is known: a package for each component present.
function(bloomcodec_cpack)
  get_cmake_property(present COMPONENTS)
  set(components)
  foreach(component cli dev python)
    if(component IN_LIST present)
      list(APPEND components ${component})
    endif()
  endforeach()
  if("Unspecified" IN_LIST present)
    message(WARNING "an install rule has no COMPONENT; no package holds what it installs "
      "(give it cli, dev or python)")
  endif()
  foreach(component IN LISTS components)
    list(FIND bloomcodec_deb_names ${component} at)
    math(EXPR at "${at} + 1")
    list(GET bloomcodec_deb_names ${at} package)
    install(FILES ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/debian/copyright ${bloomcodec_changelog_gz}
      DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
    string(TOUPPER ${component} upper)
    set(CPACK_DEBIAN_${upper}_PACKAGE_NAME ${package})
  endforeach()
  set(CPACK_COMPONENTS_ALL ${components})
  # The Python module (python/CMakeLists.txt), when the tree has it.
  if(TARGET bloomcodec_python)
    add_dependencies(bloomcodec_packaged bloomcodec_python)
  endif()

  set(CPACK_GENERATOR DEB)
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  set(CPACK_PACKAGE_NAME bloomcodec)
  set(CPACK_PACKAGE_VENDOR "the bloomcodec authors")
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_STRIP_FILES ON)
  set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_MAINTAINER
    "bloomcodec maintainers <maintainers@users.noreply.a-seed-26f3fa31.example>")
  set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

  set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
  set(CPACK_DEBIAN_CLI_DESCRIPTION
    "check and convert the bloom filters of Cassandra, LevelDB, RocksDB
bloomcodec reads, writes, verifies and converts the on-disk bloom filters of
Apache Cassandra and ScyllaDB, LevelDB (and its forks) and RocksDB, bit for
bit as the originals write and answer them. 'bloomcodec verify' checks every
filter of a data directory or database; 'bloomcodec convert' and 'repair'
rebuild filters without losing a key.")
  set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
  set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libboost-dev (>= 1.74), nlohmann-json3-dev (>= 3.10), zlib1g-dev, libsnappy-dev, \
libisal-dev, libxxhash-dev, liblz4-dev, libzstd-dev, nettle-dev, pkg-config")
  set(CPACK_DEBIAN_DEV_DESCRIPTION
    "bloom filters of Cassandra, LevelDB, RocksDB (C++ library)
The bloomcodec library (C++20, static) reads, writes, verifies and converts
the on-disk bloom filters of Apache Cassandra and ScyllaDB, LevelDB and
RocksDB, bit for bit compatible with the originals.
.
This package holds the static library, its public headers and the CMake
package: find_package(bloomcodec) and the target bloomcodec::bloomcodec.")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3")
  set(CPACK_DEBIAN_PYTHON_DESCRIPTION
    "bloom filters of Cassandra, LevelDB, RocksDB (Python 3)
The bloomcodec module reads, writes, verifies and converts the on-disk bloom
filters of Apache Cassandra and ScyllaDB, LevelDB and RocksDB, bit for bit
compatible with the originals: import bloomcodec.")
  include(CPack)
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL bloomcodec_cpack)
