# make_pages.cmake -- turn the READMEs into Doxygen pages, at build time.
#   cmake -DROOT=<repo> -DCHAPTERS=<a,b,...> -DOUT=<dir> -DDIFF=<diff> -P make_pages.cmake
# Writes OUT/pages/mainpage.md (README.md), OUT/pages/chapters.md (the list, in
# reading order), OUT/pages/chNN.md (a chapter's README followed by its sources,
# the diff of the fix and the recorded outputs), OUT/pages/<name>.md for each
# docs/<name>.md, and OUT/examples/<chapter>/fix.diff.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" CHAPTERS "${CHAPTERS}")
file(REMOVE_RECURSE "${OUT}/pages" "${OUT}/examples")
file(MAKE_DIRECTORY "${OUT}/pages")

# GitHub-style relative links become links between the site's pages.
function(rewrite_links var)
  set(t "${${var}}")
  string(REGEX REPLACE "\\]\\((\\.\\./)*chapters/([0-9][0-9])-[a-z0-9-]+/?(README\\.md)?\\)" "](@ref ch\\2)" t "${t}")
  string(REGEX REPLACE "\\]\\(\\.\\./([0-9][0-9])-[a-z0-9-]+/?(README\\.md)?\\)" "](@ref ch\\1)" t "${t}")
  string(REGEX REPLACE "\\]\\((\\.\\./)*docs/([a-z]+)\\.md\\)" "](@ref \\2)" t "${t}")
  string(REGEX REPLACE "\\]\\(([a-z]+)\\.md\\)" "](@ref \\1)" t "${t}")
  set(${var} "${t}" PARENT_SCOPE)
endfunction()

file(READ "${ROOT}/README.md" readme)
rewrite_links(readme)
file(WRITE "${OUT}/pages/mainpage.md" "${readme}")

# docs/<name>.md becomes the page <name>, so links can say @ref <name>.
file(GLOB docs_pages "${ROOT}/docs/*.md")
foreach(page IN LISTS docs_pages)
  get_filename_component(name "${page}" NAME_WE)
  file(READ "${page}" text)
  rewrite_links(text)
  string(REGEX REPLACE "^(# [^\n]*)\n" "\\1 {#${name}}\n" text "${text}")
  file(WRITE "${OUT}/pages/${name}.md" "${text}")
endforeach()

set(list "# Chapters {#chapters}\n\nOne bug per chapter, in reading order.\n\n")
foreach(ch IN LISTS CHAPTERS)
  string(SUBSTRING "${ch}" 0 2 num)
  set(dir "${ROOT}/chapters/${ch}")
  string(APPEND list "- @subpage ch${num}\n")

  file(MAKE_DIRECTORY "${OUT}/examples/${ch}")
  execute_process(COMMAND "${DIFF}" -u --label broken.cu --label fixed.cu broken.cu fixed.cu
                  WORKING_DIRECTORY "${dir}" OUTPUT_VARIABLE fix RESULT_VARIABLE rc)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "${ch}: diff of broken.cu and fixed.cu failed (exit ${rc})")
  endif()
  file(WRITE "${OUT}/examples/${ch}/fix.diff" "${fix}")

  file(READ "${dir}/README.md" text)
  rewrite_links(text)
  string(REGEX REPLACE "^(# [^\n]*)\n" "\\1 {#ch${num}}\n" text "${text}")
  string(APPEND text "
## The programs

The broken program, `broken.cu`:

\\include{lineno} ${ch}/broken.cu

The fixed program, `fixed.cu`:

\\include{lineno} ${ch}/fixed.cu

## The fix, as a diff

Generated from the two files when the site was built: this is the whole change.

\\verbinclude ${ch}/fix.diff

## Recorded output

Recorded on a real GPU by the update command (see the main page), and checked
by the chapter's golden tests on every run: stdout, then stderr (if any), then
the exit status.

`broken`:

\\verbinclude ${ch}/expected/broken.out

`fixed`:

\\verbinclude ${ch}/expected/fixed.out
")
  file(WRITE "${OUT}/pages/ch${num}.md" "${text}")
endforeach()
file(WRITE "${OUT}/pages/chapters.md" "${list}")
