import detector from './python.js';
import { testPythonFixtures } from '../../../test/support/python-tester.js';

testPythonFixtures('X-4', detector, import.meta.url);
