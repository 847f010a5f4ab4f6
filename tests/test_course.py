"""mbdlib.course: the chapter pages from _toc.yml and the times the overview pages and How-to-use show."""

import nbformat
import pytest

from mbdlib import course


def test_hours_reads_like_a_person_writes_it():
    assert course.hours(40) == "40 min"
    assert course.hours(120) == "2 h"
    assert course.hours(95) == "1 h 35 min"
    assert course.hours(93) == "1 h 35 min"   # rounded to 5 minutes


def test_chapter_number_of_a_page():
    assert course.chapter_number("chapters/ch03_2_dof_and_rank") == 3
    assert course.chapter_number("chapters/ch12_contact") == 12
    assert course.chapter_number("intro/modelling_chain") is None


def test_every_chapter_has_its_overview_first():
    assert course.chapters() == sorted(course.chapters()) and course.chapters()[0] == 1
    for n in course.chapters():
        pages = course.chapter_pages(n)
        assert pages[0].startswith(f"chapters/ch{n:02d}_")
        assert all(course.page_path(p).is_file() for p in pages)
    with pytest.raises(KeyError, match="no page of chapter 99"):
        course.chapter_pages(99)


def test_page_minutes_follow_the_stated_pace(tmp_path, monkeypatch):
    words = " ".join(["word"] * 500)
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(f"# A page\n\n{words}\n\n$$ x = 1 $$\n\n$$ y = $2$ $$"),
        nbformat.v4.new_code_cell("check('3.P1', None)"),
        nbformat.v4.new_code_cell("import numpy", metadata={"tags": ["hide-input"]}),
    ])
    (tmp_path / "chapters").mkdir()
    nbformat.write(nb, tmp_path / "chapters" / "ch03_1_page.ipynb")
    toc = "root: index\nparts:\n  - chapters:\n      - file: chapters/ch03_1_page\n"
    (tmp_path / "_toc.yml").write_text(toc)
    monkeypatch.setattr(course, "BOOK", tmp_path)
    course._toc_entries.cache_clear()
    try:
        pg = course.page("chapters/ch03_1_page")
        assert (pg.title, pg.words, pg.equations, pg.code_cells, pg.practice) == ("A page", 500 + 2, 2, 1,
                                                                                  ("3.P1",))
        raw = (502 / course.WORDS_PER_MINUTE + 2 * course.MINUTES_PER_EQUATION
               + course.MINUTES_PER_CODE_CELL + course.MINUTES_PER_PRACTICE)
        assert pg.minutes == 5 * round(raw / 5)
    finally:
        course._toc_entries.cache_clear()


def test_a_missing_book_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(course, "BOOK", tmp_path / "nowhere")
    course._toc_entries.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="clone of the course repository"):
            course.chapters()
    finally:
        course._toc_entries.cache_clear()


def test_study_table_has_a_row_per_chapter_with_the_registry_counts():
    from mbdlib.exercises import exercises

    table = course.study_table().splitlines()
    for n in course.chapters():
        row = next(r for r in table if r.startswith(f"| {n} |"))
        points = sum(e.points for e in exercises(n))
        assert f"{points:g} points" in row and f"{len(course.problems(n))} problems" in row
